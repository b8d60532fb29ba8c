"""Hostile candidate loops, for tests/test_grader_sandbox.py: each tries to hang, kill, fool or flood
the grader. Every one has the candidate signature `loop(episode, max_steps)`.

    python -m tests.helpers.hostile_loops OUT.json '{"loop": ["scenario", time_limit], ...}' MEMORY_MB

runs each named loop between two clean runs of its scenario, in this one process, and writes their facts to
OUT.json; a normal exit says that nothing a loop left behind holds the grader's process.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

from reference import StopReason
from reference.core.errors import RunawayLoop


def clean(episode, max_steps=8):
    """The lesson-1 loop, done right: the control."""
    messages = episode.initial_messages()
    for _ in range(max_steps):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        if not turn.tool_calls:
            return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)
    return episode.finish(StopReason.MAX_STEPS, messages)


def busy_loop(episode, max_steps=8):
    while True:
        pass


def sleeps(episode, max_steps=8):
    time.sleep(3600)


def swaps_the_capped_model(episode, max_steps=8):
    """Drops the grader's cap (as it could in process) and keeps calling."""
    model = episode.model
    if hasattr(model, "inner") and hasattr(model.inner, "inner"):
        model.inner = model.inner.inner
    messages = episode.initial_messages()
    while True:
        turn = model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)


def exits(episode, max_steps=8):
    sys.exit(3)


def exits_quietly(episode, max_steps=8):
    sys.exit()


def interrupts(episode, max_steps=8):
    raise KeyboardInterrupt


def os_exit(episode, max_steps=8):
    os._exit(3)


def kills_itself(episode, max_steps=8):
    os.kill(os.getpid(), signal.SIGKILL)


class NotAnException(BaseException):
    pass


def raises_a_base_exception(episode, max_steps=8):
    raise NotAnException("caught by nothing that catches Exception")


def leaves_a_thread(episode, max_steps=8):
    threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
    return clean(episode, max_steps)


def forks_sleepers(episode, max_steps=8):
    """Three processes that hold every inherited descriptor (the grader's channel too) for an hour."""
    for _ in range(3):
        if os.fork() == 0:
            time.sleep(3600)
            os._exit(0)
    return clean(episode, max_steps)


def catches_the_runaway(episode, max_steps=8):
    """Ignores max_steps, swallows what the grader raises to stop it, then claims success."""
    messages = episode.initial_messages()
    for _ in range(200):
        try:
            turn = episode.model.complete(messages, episode.tools.specs)
        except (RunawayLoop, Exception):
            continue
        messages.append(turn.message)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)
    return episode.finish(StopReason.COMPLETED, messages, answer="Your order is in transit.")


def mutates_internals(episode, max_steps=8):
    """Three real calls, then wipes the books and edits the scenario it was given."""
    messages = episode.initial_messages()
    for _ in range(3):
        turn = episode.model.complete(messages, episode.tools.specs)
        messages.append(turn.message)
        messages.extend(episode.tools.execute(call) for call in turn.tool_calls)
    for attempt in (lambda: episode.ledger.steps.clear(), lambda: episode.scenario.model.script.clear(),
                    lambda: episode.scenario.model.cycle.clear(), lambda: episode.tools.specs.clear(),
                    lambda: episode.clock.__setattr__("elapsed", 0.0)):
        try:
            attempt()
        except Exception:
            pass
    return episode.finish(StopReason.MAX_STEPS, messages)


def forges_completion(episode, max_steps=8):
    return episode.finish(StopReason.COMPLETED, [])


def claims_completion_mid_task(episode, max_steps=8):
    """One request (the model asks for tools), then "completed" with an answer of its own."""
    messages = episode.initial_messages()
    turn = episode.model.complete(messages, episode.tools.specs)
    messages.append(turn.message)
    return episode.finish(StopReason.COMPLETED, messages, answer="All done.")


def allocates_10_gb(episode, max_steps=8):
    chunks = [bytearray(100 * 1024 ** 2) for _ in range(100)]
    return chunks


def returns_a_dict(episode, max_steps=8):
    return {"stop_reason": "completed", "answer": "In transit."}


def floods_stdout(episode, max_steps=8):
    block = "x" * 65535 + "\n"
    for _ in range(3200):  # 200 MB
        sys.stdout.write(block)
    return clean(episode, max_steps)


def recurses(episode, max_steps=8):
    def deeper(n):
        return deeper(n + 1)
    return deeper(0)


def raises_a_huge_message(episode, max_steps=8):
    raise ValueError("x" * 50_000_000)


def has_an_unprintable_exception(episode, max_steps=8):
    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no")
    raise Unprintable()


def closes_the_channel(episode, max_steps=8):
    """Closes every descriptor the grader might be listening on, then keeps running."""
    os.closerange(3, 256)
    time.sleep(3600)


def sends_garbage(episode, max_steps=8):
    """Writes a frame of its own to the grader: a probe nested far deeper than any kit object."""
    import socket
    import struct
    nested = "[" * 100_000 + "]" * 100_000
    for fd in range(3, 64):
        try:
            sock = socket.socket(fileno=os.dup(fd))
            if sock.type != socket.SOCK_STREAM:
                continue
            payload = ('{"op": "result", "claim": null, "probe": ' + nested + "}").encode()
            sock.sendall(struct.pack(">I", len(payload)) + payload)
        except OSError:
            continue
    time.sleep(3600)


def reads_the_script(episode, max_steps=8):
    """Looks for the scenario's script and `expect` in its episode and anywhere in its memory, and prints them."""
    import gc
    from reference.sim.scenario.schema import ExpectDef, Scenario
    from reference.sim.scenario.schema_script import StepDef
    whole = [o for o in gc.get_objects() if isinstance(o, (ExpectDef, StepDef))
             or isinstance(o, Scenario) and o.expect is not None]
    seen = episode.scenario
    print(f"FOUND {len(whole)} script={len(seen.model.script) + len(seen.model.cycle)} expect={seen.expect} "
          f"rules={sum(len(t.rules) for t in seen.tools)}")
    return clean(episode, max_steps)


CLEAN_LIMIT = 120.0  # the clean runs' limit: a guard against a hang, never reached by a run of milliseconds


def facts(attempt) -> dict:
    result = attempt.result
    return {"story": attempt.story(), "error": type(attempt.error).__name__ if attempt.error else None,
            "model_calls": attempt.model_calls, "stop_reason": result.stop_reason.value if result else None,
            "output_bytes": attempt.output_bytes, "output_kept": len(attempt.output), "printed": attempt.output[:300]}


def run_all(out_path: str, cases: dict[str, list], memory_mb: int) -> None:
    """Every hostile loop, run as a candidate file is (`hostile_loops.py::name`, in a fresh interpreter), each
    between two clean runs of its scenario run as a test's own function is (in a fork)."""
    import time

    from reference.sandbox.grading import run_candidate

    def run(loop, scenario, time_limit):
        return facts(run_candidate(loop, scenario, time_limit=time_limit, memory_mb=memory_mb))

    def timed(loop, scenario, time_limit):
        started = time.monotonic()
        return {**run(loop, scenario, time_limit), "seconds": time.monotonic() - started}

    here = os.path.abspath(__file__)
    run(f"{here}::clean", "happy-path", CLEAN_LIMIT)  # the zygote started once, before any clock
    records = {}
    for name, (scenario, time_limit) in cases.items():  # the hostile loop's own limit is for it alone
        records[name] = {"before": run(clean, scenario, CLEAN_LIMIT),
                         "hostile": timed(f"{here}::{name}", scenario, time_limit),
                         "after": run(clean, scenario, CLEAN_LIMIT)}
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump(records, out)


if __name__ == "__main__" and len(sys.argv) == 4:
    run_all(sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]))
    sys.exit(0)
