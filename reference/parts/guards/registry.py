"""The loop guard's detectors, in the order they are asked: the first that fires speaks for the call.

Each states its rule in one sentence and holds one legitimate case it must not fire on (`legitimate`, a
scenario that tests/test_guard_principles.py runs), in the file of its principle: one file each, but for
the same answer (answers.py), whose two tallies are asked at two places. Adding a detector touches its
own file and this list, nothing else.
"""
from __future__ import annotations

from .amended import AmendedAsNew
from .answers import Rephrasing, SameAnswer
from .cycles import Cycle
from .landed import LandedAfterTimeout
from .progress import NoProgress
from .repeats import RepeatedCall
from .resent import ResentWrite
from .rounds import Round
from .state import Detector

DETECTORS: tuple[Detector, ...] = (RepeatedCall(), ResentWrite(), AmendedAsNew(), LandedAfterTimeout(), Cycle(),
                                   Round(), Rephrasing(), NoProgress(), SameAnswer())
