"""The kit's loop guard inside other frameworks, one small module each, through the framework's own
extension point; each calls `reference.bench.kitguard.KitGuard`, which imports no SDK and no pydantic.

    langchain.py       LangChain / LangGraph `create_agent`: an AgentMiddleware (wrap_tool_call, before_model)
    openai_agents.py   OpenAI Agents SDK: tool input and output guardrails on each tool, run hooks for the turns
    pydantic_ai.py     Pydantic AI: a capability around each tool execution (wrap_tool_execute)
    smolagents.py      smolagents: each Tool wrapped (forward); a step callback ends the run on a stop
    crewai.py          CrewAI: before- and after-tool-call hooks, a before-LLM-call hook for a stop (crewai.hooks)

Each module imports its framework, so each is imported only inside that framework's venv.
"""
