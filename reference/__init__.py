"""Agent Loop Interview Kit: the harness that exercises plug into, and the reference loops."""
from .sim.clock import SimClock
from .harness.episode import Episode
from .core.messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from .core.model import Model, Pricing, Turn, Usage
from .wire.protocol import ProtocolError, check_request, to_wire
from .core.result import RunResult, StepRecord, StopReason
from .core.errors import ScenarioError
from .sim.scenario.loading import catalogue, find, load_scenario, parse_scenario
from .sim.scenario.schema import Scenario
from .sim.scripted import ScriptedModel, ScriptExhausted
from .sim.tools import ToolOutcome, Toolbox, ToolTimeout

__all__ = [
    "AssistantMessage", "Episode", "Message", "Model", "Pricing", "ProtocolError", "RunResult", "ScriptExhausted",
    "Scenario", "ScenarioError", "ScriptedModel", "SimClock", "StepRecord", "StopReason", "SystemMessage",
    "ToolCall", "ToolMessage", "ToolOutcome", "ToolSpec", "ToolTimeout", "Toolbox", "Turn", "Usage",
    "UserMessage", "catalogue", "check_request", "find", "load_scenario", "parse_scenario", "to_wire",
]
