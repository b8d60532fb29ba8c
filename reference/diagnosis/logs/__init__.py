"""Real agent logs as conversations: `read_log(path)` tells the format by content and yields each
conversation in the kit's own messages, with the index of every message in the log's own list."""
from .conversation import Conversation
from .read import EXPECTED, NotALog, read_log

__all__ = ["Conversation", "EXPECTED", "NotALog", "read_log"]
