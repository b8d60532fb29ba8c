# ---
# # The mock interview's source (not a numbered lesson: reference/lessons.py EXTRA_NOTEBOOKS). Rebuild with:
# #     python notebooks/build.py mock_interview
# # The logic is reference/lab/mock.py and reference/grade/ (`loopkit grade`, docs/grading.md).
# ---

# %% [markdown]
# # Mock interview: the agent loop
#
# *About 30 minutes, alone or in pairs.*
#
# 1. Read the opener, and write your loop in the cell below it (a plain `agent(llm, run_tool,
#    user_message, tools)`; the grader takes the kit's API and the openai and anthropic SDKs too:
#    docs/grading.md).
# 2. Run the grade: your loop runs on scripted failure scenarios in a sandbox, and each rubric item is
#    shown, contradicted, or left to ask.
# 3. Take the five follow-ups one at a time (the buttons), answer aloud, then look at a strong answer.
# 4. Score yourself on what the runs could not show.
#
# Without widgets (a static page), the full interview is printed at the end.

# %%
from pathlib import Path
import tempfile

from kit import ROOT  # notebooks/kit.py: puts the repository root on sys.path

from IPython.display import Markdown, display

from reference.grade import grade_file
from reference.grade.report import to_markdown
from reference.interview.bank import load_bank
from reference.lab.mock import MockInterview, MockInterviewWidgets, static_text

LANG = "en"  # the bank's language: "en" or "zh" (中文); change it and run the notebook again
interview = MockInterview(load_bank(), lang=LANG)
print(interview.opener)

# %% [markdown]
# ## Your loop
#
# Replace the loop in the string below with yours (this one is the naive loop: it sits on the pass line).

# %%
MY_LOOP = '''
import json


def agent(llm, run_tool, user_message, tools):
    messages = [{"role": "user", "content": user_message}]
    for _ in range(8):
        reply = llm(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            try:
                result = run_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
            except Exception as exc:
                result = json.dumps({"ok": False, "error": type(exc).__name__})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return None
'''

# %% [markdown]
# ## The grade
#
# `quick` runs six scenarios and `happy-path` on the two other wires; `loopkit grade my_loop.py` in a
# terminal runs the full interview set.

# %%
folder = Path(tempfile.mkdtemp())
(folder / "my_loop.py").write_text(MY_LOOP, encoding="utf-8")
grade = grade_file(folder / "my_loop.py", "quick")
display(Markdown(to_markdown(grade).replace(str(folder) + "/", "")))

# %% [markdown]
# ## The follow-ups, one at a time, and your score
#
# **next follow-up** shows the next question; answer it aloud first, then **show a strong answer**.
# Tick the items you could defend; an item the runs contradicted cannot be ticked into points.

# %%
# NBVAL_IGNORE_OUTPUT
widgets = MockInterviewWidgets(interview, grade)
display(widgets.box)

# %% [markdown]
# The score with nothing ticked (the runs alone), and with the two bonus items claimed:

# %%
for ticked in (set(), {"stop_reason_health", "native_function_calling"}):
    total, lines = interview.score(grade, ticked)
    print(f"ticked {sorted(ticked) or 'nothing'}: {total}")

# %% [markdown]
# ## Static fallback: the whole interview
#
# If the buttons above do not render, read on: the opener, the five follow-ups with what a strong
# answer holds, and the rubric's questions.

# %%
print(static_text(interview))
