"""What an answer gave to name a thing by: a value of it that a later call sent back whole, as one of its arguments.

A member's name says it holds an id only where a standard or a convention names it so (JSON:API's `id`, JSON-LD's
`@id`, `*_id`); services name theirs as they like: a Slack message's `ts`, a GitHub issue's `number`, a Kubernetes
object's `uid`. Whatever its member or its label in text, a value the answer showed, that the call did not send and a
later call sent back whole (the message read back by its `ts`), names the thing the call made (own.py: minted by the
call, not news of the world). It must not fire on a count read from: batches loaded, each read from the total the
load answered, show new rows, which is news the read brings whatever it was sent.
"""
from __future__ import annotations

import re
from typing import Optional

from .arguments import argument_leaves
from .state import GuardedCall, Memory

_WORD = re.compile(r"[\w./:@-]+")


def sent_back(m: Memory, x: GuardedCall, until: Optional[GuardedCall] = None) -> frozenset[str]:
    """The values of `x`'s answer, whole or as words of its text, that a call after `x` (and before `until`) sent
    back as one of its arguments, and that `x` did not send itself."""
    if x.content is None:
        return frozenset()
    later = m.attempts[x.index + 1:until.index if until is not None else len(m.attempts)]
    sent = {str(v) for y in later for _, v in argument_leaves(y.arguments)
            if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    if not sent:
        return frozenset()
    leaves = {str(v) for _, v in argument_leaves(x.content) if not isinstance(v, (bool, dict, list))}
    words = {w.strip("./:@-") for leaf in leaves for w in _WORD.findall(leaf)}
    return frozenset((leaves | words) & sent - {str(v) for _, v in argument_leaves(x.arguments)})
