"""`loopkit grade CANDIDATE.py`: a candidate's loop run on scripted scenarios, in the sandbox, and scored on
the interview rubric (docs/grading.md). kinds.py reads which kind of file it is, child.py adapts it in
the child process, suite.py runs the scenarios, rubric.py judges, report.py writes the report."""
from .report import Grade, grade_file

__all__ = ["Grade", "grade_file"]
