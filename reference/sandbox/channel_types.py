"""The classes a candidate's process and the grader may name to each other on the channel: the allow-list that
reference/core/codec.py rebuilds from. Anything else comes back as plain data (a namespace, a RemoteError, a
repr): what the other side names is looked up here, never imported."""
from __future__ import annotations

from ..core import errors
from ..core.codec import allow
from ..core.messages import AssistantMessage, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from ..core.model import Pricing, Turn, Usage
from ..core.result import RunResult, StepRecord, StopReason, ToolRecord
from ..parts.degrade.next_steps import NextStep
from ..parts.degrade.result import Degraded, FinalCall, Obtained, Tried
from ..sim.tools import ToolOutcome, ToolTimeout

MESSAGES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolCall, ToolSpec)
RESULTS = (Turn, Usage, Pricing, RunResult, StepRecord, ToolRecord, StopReason, ToolOutcome)
DEGRADED = (Degraded, Obtained, Tried, FinalCall, NextStep)
ERRORS = (errors.HarnessError, errors.ProtocolError, errors.ScenarioError, errors.ScriptExhausted, errors.RunawayLoop,
          errors.ProviderError, errors.ProviderTimeout, ToolTimeout)

allow(*MESSAGES, *RESULTS, *DEGRADED, *ERRORS)
