"""Red flag: the fingerprint is json.dumps of the raw arguments.

"I hash the tool name and the arguments." Key order, a padded or lower-case code, "tomorrow" for the
date, PKX for PEK: every disguise is a new call, so the repeats never match (CrewAI's check has the
same blind spot: it compares the arguments exactly, and only with the previous call).
"""
import json
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py").read_text(encoding="utf-8"),
             "solutions/ex03_fingerprint_guard.py", "exec"))


def fingerprint(tool, arguments, schema, today):
    return tool + " " + json.dumps(arguments)
