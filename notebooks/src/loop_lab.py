# ---
# # The Loop Lab's source (not a numbered lesson: reference/lessons.py EXTRA_NOTEBOOKS). Rebuild with:
# #     python notebooks/build.py loop_lab
# # The lab's logic is reference/lab/ (tested in tests/test_lab.py); this notebook only shows it.
# ---

# %% [markdown]
# # The Loop Lab
#
# *For a room: about 20 minutes, live.*
#
# Pick a scenario and a loop, switch the parts on and off (**budget**, **guard**, **degrade**,
# **executor**), move the sliders (**max_steps**, the **token budget**, after how many runs of one
# action the guard **intervenes**), pick a **wire** format, and watch what changes: the step
# timeline (lesson 6), which tool each step called, the tokens piling up, the stop reason, and what the
# user reads. Two configurations side by side: **edit** chooses which one the controls change.
#
# The widgets need a live kernel (Jupyter, Colab, Binder). On a static page, the rendering under the
# widgets shows the lab as it starts: the lesson-1 loop against the guarded loop on `repeat-exact`.

# %%
from kit import ROOT  # notebooks/kit.py: puts the repository root on sys.path

from IPython.display import HTML, Image, display

from reference.lab.engine import LabConfig, run_config
from reference.lab.picture import png
from reference.lab.widgets import LoopLab, render_static

# %% [markdown]
# ## The lab

# %%
# NBVAL_IGNORE_OUTPUT
lab = LoopLab()
display(lab.box)

# %% [markdown]
# ## The same, as a static rendering
#
# Left: every part off (the lesson-1 loop). Right: every part on (the guarded loop).

# %%
display(HTML(render_static(lab.left, lab.right, pictures=False)))
display(Image(png(lab.left)), Image(png(lab.right)))

# %% [markdown]
# ## Try this
#
# 1. On the right, switch the **guard** off: the repeat runs to the step limit, and the tokens keep climbing.
# 2. Pick `token-blowup`, switch the **budget** on, and move the **token budget** slider down: the run stops
#    earlier with `token_budget`, and with **degrade** on the user still reads what was found.
# 3. Pick `tool-down` and switch the **executor** on: the breaker ends the run with `circuit_open`.
# 4. Move **intervene after** up on `repeat-exact`: the guard lets the repeat run longer before it speaks.
# 5. Change the **wire** to `anthropic`: the same run, priced on another wire's token count.
#
# The same from code, without widgets:

# %%
for config in (LabConfig("token-blowup", budget=True, degrade=True), LabConfig("tool-down", executor=True)):
    run = run_config(config)
    print(f"{config.scenario:<14} {', '.join(config.parts_on):<16} -> {run.stop_reason:<13} "
          f"{len(run.steps)} model calls, {run.cumulative_tokens[-1]:,} tokens")
