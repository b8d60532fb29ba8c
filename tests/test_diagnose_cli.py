"""`loopkit diagnose`: the terminal report, `--json` as docs/diagnose.md specifies it, `--html`, worker
processes, and bad input (reference/cli/diagnose.py)."""
from __future__ import annotations

import json

from reference.cli.main import main
from reference.diagnosis import samples
from reference.diagnosis.fleetlog import FleetSummary, summarise
from reference.diagnosis.logs import write
from reference.diagnosis.replay_log import MULTI_TURN


def _fleet(tmp_path):
    a = tmp_path / "support.jsonl"
    a.write_text("\n".join(json.dumps({"messages": write.chat(t), "id": f"s{i}"})
                           for i, t in enumerate([samples.support_loop(), samples.support_ok()])) + "\n")
    b = tmp_path / "coding.json"
    b.write_text(json.dumps(write.responses(samples.coding_loop())))
    return a, b


def test_json_lines_one_object_per_conversation_with_the_documented_fields(tmp_path, capsys):
    a, b = _fleet(tmp_path)
    assert main(["diagnose", str(a), str(b), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["source"], r["conversation"], r["id"]) for r in rows] == [(str(a), 0, "s0"), (str(a), 1, "s1"),
                                                                         (str(b), 0, None)]
    call = rows[0]["calls"][2]
    assert set(call) >= {"message", "tool", "arguments", "verdict", "rule", "why"}
    assert call["message"] == 8 and call["arguments"]["order_id"] == "A1234"
    assert call["verdict"] == "intervene" and call["rule"] == "repeated_call"
    assert rows[1]["shape"] == "clean" and rows[0]["shape"] == "repeated_call"


def test_the_terminal_report_has_a_row_per_conversation_then_the_fleet(tmp_path, capsys):
    a, b = _fleet(tmp_path)
    assert main(["diagnose", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "support.jsonl#0" in out and "support.jsonl#1" in out and "coding.json#0" in out
    assert "conversations 3, calls" in out and "loop rate 66.7%" in out and "worst:" in out


def test_html_draws_a_timeline_per_flagged_conversation(tmp_path, capsys):
    a, b = _fleet(tmp_path)
    page = tmp_path / "report.html"
    assert main(["diagnose", str(a), str(b), "--html", str(page)]) == 0
    html = page.read_text()
    assert html.count("role=\"img\"") == 2  # a timeline per flagged conversation: two flagged, one clean
    assert "repeated_call" in html and "loop rate" in html
    assert "the user, message 7" in html  # the user's turn between two calls is drawn


def test_worker_processes_give_the_same_verdicts(tmp_path, capsys):
    a, b = _fleet(tmp_path)
    main(["diagnose", str(a), str(b), "--json"])
    one = capsys.readouterr().out
    main(["diagnose", str(a), str(b), "--json", "--jobs", "2"])
    assert capsys.readouterr().out == one


def test_a_bad_file_is_one_line_and_the_others_are_still_read(tmp_path, capsys):
    a, _ = _fleet(tmp_path)
    other = tmp_path / "notes.json"
    other.write_text("hello")
    assert main(["diagnose", str(other), str(a)]) == 0
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1 and "expected" in captured.err
    assert "conversations 2" in captured.out
    assert main(["diagnose", str(other)]) == 2


def test_fleet_summaries_of_shards_merge_into_the_whole(tmp_path, capsys):
    a, b = _fleet(tmp_path)
    main(["diagnose", str(a), str(b), "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    whole = summarise(rows).to_dict()
    merged = summarise(rows[:1]).merge(summarise(rows[1:])).to_dict()
    assert merged == whole
    assert whole["conversations"] == 3 and whole["loop_rate"] == 2 / 3
    assert whole["worst"][0]["calls_after_flag"] == max(r["calls_after_flag"] for r in rows)
    assert FleetSummary().to_dict()["loop_rate"] == 0.0


def test_replay_turns_a_real_conversation_into_a_scenario_that_plays_the_same_calls(tmp_path, capsys):
    from reference.harness.episode import Episode
    from reference.runs.registry import run_loop
    from reference.sim.scenario.loading import load_scenario
    a, _ = _fleet(tmp_path)
    case = tmp_path / "case.yaml"
    assert main(["replay", str(a), "--conversation", "0", "-o", str(case)]) == 0
    scenario = load_scenario(case)
    if MULTI_TURN:  # the scripted user says the recorded user turns, after the same answers
        assert [t.text for t in scenario.user_turns] == [samples.support_loop()[7][1], samples.support_loop()[13][1]]
    else:
        assert "messages 7, 13" in scenario.description  # the user's later turns, not played, are named
    react = run_loop("react", Episode.from_scenario(scenario))
    if MULTI_TURN:
        assert [m.role for m in react.messages] == [t[0] for t in samples.support_loop()]
    recorded = [(c["tool"], c["arguments"]) for c in _verdicts(tmp_path, a, capsys)[0]["calls"]]
    played = [(c["name"], json.loads(c["arguments"])) for s in react.steps for c in s.tool_calls]
    assert react.stop_reason.value == "completed" and react.tool_calls == len(recorded)
    guarded = run_loop("guarded", Episode.from_scenario(scenario))
    assert guarded.stop_reason.value == "repeated_call" and guarded.tool_calls < len(recorded)
    assert played == recorded  # the same calls, in the same order
    assert main(["replay", str(a), "--conversation", "9"]) == 2


def _verdicts(tmp_path, path, capsys):
    capsys.readouterr()
    main(["diagnose", str(path), "--json"])
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_report_reads_diagnose_shards_into_one_fleet(tmp_path, capsys):
    a, b = _fleet(tmp_path)
    shards = tmp_path / "shards"
    shards.mkdir()
    for path in (a, b):
        (shards / f"{path.stem}.jsonl").write_text("\n".join(json.dumps(r) for r in _verdicts(tmp_path, path, capsys)) + "\n")
    capsys.readouterr()
    assert main(["report", str(shards), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    main(["diagnose", str(a), str(b), "--json"])
    whole = summarise(json.loads(line) for line in capsys.readouterr().out.splitlines()).to_dict()
    assert merged == whole
    assert main(["report", str(shards)]) == 0 and "loop rate 66.7%" in capsys.readouterr().out
