"""What tests share: fixtures' data, stand-ins, hostile loops and the scripts tests start in a child.

How a test imports a helper: `from tests.helpers.MODULE import NAME`. `tests` is a package (tests/__init__.py),
so pytest puts the repository's root on sys.path itself (its default `prepend` import mode) and the same line
works in a test file, in a helper, and in a child started with `python -m tests.helpers.MODULE` from the root.
Never `from conftest import ...`, never `from test_other_file import ...`, never a sys.path edit;
tests/test_suite_hygiene.py fails on each of them. Where a helper came from:

    from conftest import load_exercise                      -> from tests.helpers.targets import load_exercise
    from test_ex04_degraded_output import TinyGuard, ...    -> from tests.helpers.degraded import TinyGuard, ...
    from test_protocol import INVARIANTS, TOOLS             -> from tests.helpers.protocol_cases import INVARIANTS, TOOLS
    from test_scenarios import VALID                        -> from tests.helpers.scenario_text import VALID
    sys.path.insert(...); import hostile_loops              -> from tests.helpers import hostile_loops
    python tests/concurrent_runs.py HOW                     -> python -m tests.helpers.concurrent_runs HOW (cwd: root)
    sys.path.insert(0, "benchmarks"); import generated_...  -> load_script("benchmarks/generated_scenarios.py")
    sys.path.insert(0, "notebooks"); import badges          -> load_script("notebooks/badges.py")

A repository script that is not a package (benchmarks/, notebooks/) is loaded by path with
`tests.helpers.scripts.load_script`. A tool the tests run (lint-imports, pytest, jupyter) is started
through `sys.executable` (`[sys.executable, "-m", ...]`), never looked up on PATH.
"""
