"""`loopkit`, the command line: one module per command, and the table printer they share."""
from .main import main

__all__ = ["main"]
