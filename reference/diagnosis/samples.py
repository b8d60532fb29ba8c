"""Sample agent logs the kit writes itself, for lesson 6, the tests and the speed benchmark: multi-turn
conversations of a customer-service agent with a simulated user and of a coding agent, in the turn form
of logs/write.py. Each has a healthy twin, so a fleet has both kinds.

    support_loop     a write fails with the same plain-text error three times while the user rephrases
    support_ok       the same task done right: one lookup, one write after the user gives the missing field
    coding_loop      the same failing test is run, the same patch applied again, the test run again ...
    coding_ok        read, test, patch, test again after the change (a legitimate re-run), answer
"""
from __future__ import annotations

import random

from .logs.write import Turn

SUPPORT_SYSTEM = "You are the support agent of an online shop. Use the tools; never invent order data."
CODING_SYSTEM = "You are a coding agent working in a repository. Run the tests before you answer."
ADDRESS_ERROR = "Error: address validation failed: postcode is required for DE addresses"


def support_loop(order: str = "A1234") -> list[Turn]:
    change = {"order_id": order, "street": "Invalidenstr. 116", "city": "Berlin", "country": "DE"}
    return [
        ("system", SUPPORT_SYSTEM),
        ("user", f"Hi, please ship order {order} to Invalidenstr. 116, Berlin instead."),
        ("assistant", "Let me look at the order.", [("call_1", "get_order", {"order_id": order})]),
        ("tool", "call_1", f'{{"order_id": "{order}", "status": "processing", "city": "Hamburg"}}', False),
        ("assistant", "", [("call_2", "update_shipping_address", change)]),
        ("tool", "call_2", ADDRESS_ERROR, True),  # a failure: the wires that have a flag carry it
        ("assistant", "Sorry, something went wrong. Could you confirm the address?", []),
        ("user", "It's Invalidenstr. 116 in Berlin, like I said."),
        ("assistant", "", [("call_3", "update_shipping_address", change)]),
        ("tool", "call_3", ADDRESS_ERROR, True),  # a failure: the wires that have a flag carry it
        ("assistant", "", [("call_4", "update_shipping_address", change)]),
        ("tool", "call_4", ADDRESS_ERROR, True),  # a failure: the wires that have a flag carry it
        ("assistant", "I'm having trouble. Can you give me the address once more?", []),
        ("user", "Invalidenstr. 116, Berlin. Why is this so hard?"),
        ("assistant", "", [("call_5", "update_shipping_address", change)]),
        ("tool", "call_5", ADDRESS_ERROR, True),  # a failure: the wires that have a flag carry it
        ("assistant", "I could not update the address. A colleague will contact you.", []),
    ]


def support_ok(order: str = "B5678") -> list[Turn]:
    change = {"order_id": order, "street": "Invalidenstr. 116", "postcode": "10115", "city": "Berlin", "country": "DE"}
    return [
        ("system", SUPPORT_SYSTEM),
        ("user", f"Please ship order {order} to Invalidenstr. 116, Berlin."),
        ("assistant", "", [("call_1", "get_order", {"order_id": order})]),
        ("tool", "call_1", f'{{"order_id": "{order}", "status": "processing", "city": "Hamburg"}}', False),
        ("assistant", "What is the postcode of the new address?", []),
        ("user", "10115"),
        ("assistant", "", [("call_2", "update_shipping_address", change)]),
        ("tool", "call_2", f'{{"order_id": "{order}", "updated": true}}', False),
        ("assistant", "Done: the order ships to Invalidenstr. 116, 10115 Berlin.", []),
    ]


def coding_loop() -> list[Turn]:
    patch = {"path": "src/dates.py", "old": "return d.day", "new": "return d.day + 1"}
    failing = "FAILED tests/test_dates.py::test_next_day - assert 31 == 1"
    return [
        ("system", CODING_SYSTEM),
        ("user", "The next_day test fails; please fix it."),
        ("assistant", "", [("t1", "read_file", {"path": "src/dates.py"})]),
        ("tool", "t1", "def next_day(d):\n    return d.day\n", False),
        ("assistant", "", [("t2", "run_tests", {"path": "tests/test_dates.py"})]),
        ("tool", "t2", failing, False),
        ("assistant", "", [("t3", "edit_file", patch)]),
        ("tool", "t3", "Error: old text not found in src/dates.py", False),
        ("assistant", "", [("t4", "edit_file", patch)]),
        ("tool", "t4", "Error: old text not found in src/dates.py", False),
        ("assistant", "", [("t5", "run_tests", {"path": "tests/test_dates.py"})]),
        ("tool", "t5", failing, False),
        ("assistant", "", [("t6", "edit_file", patch)]),
        ("tool", "t6", "Error: old text not found in src/dates.py", False),
        ("assistant", "I could not fix the test.", []),
    ]


def coding_ok() -> list[Turn]:
    return [
        ("system", CODING_SYSTEM),
        ("user", "The next_day test fails; please fix it."),
        ("assistant", "", [("t1", "read_file", {"path": "src/dates.py"}),
                           ("t2", "run_tests", {"path": "tests/test_dates.py"})]),
        ("tool", "t1", "def next_day(d):\n    return d.day\n", False),
        ("tool", "t2", "FAILED tests/test_dates.py::test_next_day - assert 31 == 1", False),
        ("assistant", "", [("t3", "edit_file", {"path": "src/dates.py", "old": "return d.day",
                                                "new": "return d + timedelta(days=1)"})]),
        ("tool", "t3", '{"ok": true, "changed_lines": 1}', False),
        ("assistant", "", [("t4", "run_tests", {"path": "tests/test_dates.py"})]),
        ("tool", "t4", "1 passed in 0.02s", False),
        ("assistant", "Fixed: next_day now adds a day with timedelta.", []),
    ]


def fleet(n: int, seed: int = 0) -> list[tuple[str, list[Turn]]]:
    """`n` conversations, a fixed mix (about one in four loops), with order numbers that differ."""
    rng = random.Random(seed)
    makers = [("support_loop", lambda i: support_loop(f"A{i:05d}")), ("support_ok", lambda i: support_ok(f"B{i:05d}")),
              ("coding_loop", lambda i: coding_loop()), ("coding_ok", lambda i: coding_ok())]
    weights = [1, 3, 1, 3]
    return [(name, make(i)) for i, (name, make) in
            ((i, rng.choices(makers, weights)[0]) for i in range(n))]
