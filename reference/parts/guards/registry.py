"""The loop guard's detectors, in the order they are asked: the first that fires speaks for the call.

Each is one file with its rule in one sentence and one legitimate case it must not fire on
(`legitimate`, a scenario that tests/test_guard_principles.py runs). Adding a detector touches its
own file and this list, nothing else.
"""
from __future__ import annotations

from .answers import SameAnswer
from .cycles import Cycle
from .progress import NoProgress
from .repeats import RepeatedCall
from .rephrasing import Rephrasing
from .state import Detector

DETECTORS: tuple[Detector, ...] = (RepeatedCall(), Cycle(), Rephrasing(), NoProgress(), SameAnswer())
