"""Red flag: the fingerprint is the tool name (or the arguments without the page).

"If the same tool is called again, it is a loop." Paging calls the same tool with a new page each
time, and every page brings new orders: a read asked again runs once more and its new answer saves it,
but a write on a new order (three refunds) is answered before it runs, and the task breaks.
"""
from pathlib import Path

# The solution, with one piece replaced below: what the interviewer hears most often is rarely all wrong.
exec(compile((Path(__file__).resolve().parents[2] / "solutions" / "ex03_fingerprint_guard.py").read_text(encoding="utf-8"),
             "solutions/ex03_fingerprint_guard.py", "exec"))


def fingerprint(tool, arguments, schema, today):
    return tool
