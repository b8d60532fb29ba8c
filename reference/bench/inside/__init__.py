"""The kit's loop guard inside other frameworks, one small module each, through the framework's own
extension point; each calls `reference.bench.kitguard.KitGuard`, which imports no SDK and no pydantic.

    langchain.py       LangChain / LangGraph `create_agent`: an AgentMiddleware (wrap_tool_call, before_model)
    openai_agents.py   OpenAI Agents SDK: a tool input guardrail and a tool output guardrail on each tool
    pydantic_ai.py     Pydantic AI: a WrapperToolset around the agent's tools (call_tool)
    smolagents.py      smolagents: each Tool wrapped (forward); a step callback ends the run on a stop
    crewai.py          CrewAI: a before-tool-call hook and an after-tool-call hook (crewai.hooks)

Each module imports its framework, so each is imported only inside that framework's venv.
"""
