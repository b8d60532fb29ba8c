"""Agent Loop Interview Kit: the harness that exercises plug into, and the reference loops."""
from .clock import SimClock
from .episode import Episode
from .messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from .model import Model, Pricing, Turn, Usage
from .protocol import ProtocolError, check_request, to_wire
from .result import RunResult, StepRecord, StopReason
from .scenario import Scenario, ScenarioError, catalogue, find, load_scenario, parse_scenario
from .scripted import ScriptedModel, ScriptExhausted
from .tools import ToolOutcome, Toolbox, ToolTimeout

__all__ = [
    "AssistantMessage", "Episode", "Message", "Model", "Pricing", "ProtocolError", "RunResult", "ScriptExhausted",
    "Scenario", "ScenarioError", "ScriptedModel", "SimClock", "StepRecord", "StopReason", "SystemMessage",
    "ToolCall", "ToolMessage", "ToolOutcome", "ToolSpec", "ToolTimeout", "Toolbox", "Turn", "Usage",
    "UserMessage", "catalogue", "check_request", "find", "load_scenario", "parse_scenario", "to_wire",
]
