"""The Loop Lab's widgets (ipywidgets 7 and 8: only widgets and calls both lines have).

    lab = LoopLab()          # in a notebook: display(lab.box)
    lab.controls["max_steps"].value = 4   # what a slider move does; tests do the same
    lab.left.stop_reason                  # the last run of the left configuration

Two configurations side by side: the controls edit the one chosen in `side` (left or right); every
change runs it again and redraws its column. `render_static` gives the same columns as HTML with the
pictures inlined, for the stored notebook (it reads on a static page and under nbval).
"""
from __future__ import annotations

import base64
import html
from typing import Any

from .engine import LOOPS, PARTS, LabConfig, LabRun, run_config, scenario_names
from .picture import png

WIRES = ("openai-chat", "openai-responses", "anthropic")


def column_html(run: LabRun, label: str, pictures: bool = True) -> str:
    """One configuration's outputs: summary, picture, stop reason, timeline and the answer the user reads."""
    e = html.escape
    s = run.summary()
    picture = "" if run.result is None or not pictures else (
        f"<img alt='steps of {e(label)}' src='data:image/png;base64,{base64.b64encode(png(run)).decode()}'/>")
    return (f"<div class='lab-column' data-side='{e(label)}'><h4>{e(label)}: {e(s['scenario'])}</h4>"
            f"<p>parts: {e(s['parts'])}; max_steps {run.config.max_steps}; wire {e(run.config.wire)}</p>"
            f"<p class='stop-reason'>stop reason: <b>{e(run.stop_reason)}</b> · {s['model_calls']} model calls · "
            f"{s['tokens']:,} tokens · ${s['cost_usd']:.4f}</p>{picture}"
            f"<pre>{e(run.timeline)}</pre><pre class='answer'>{e(run.answer[:1200])}</pre></div>")


def render_static(left: LabRun, right: LabRun, pictures: bool = True) -> str:
    """Both columns as HTML; `pictures=False` leaves the PNGs out (a stored notebook shows them as images)."""
    return ("<div style='display:flex;gap:1em'>" + column_html(left, "left", pictures)
            + column_html(right, "right", pictures) + "</div>")


class LoopLab:
    def __init__(self, left: LabConfig | None = None, right: LabConfig | None = None):
        import ipywidgets as w  # lazy: only a notebook (or a test) builds widgets

        self.configs = {"left": left or LabConfig("repeat-exact"),
                        "right": right or LabConfig("repeat-exact").with_loop("guarded")}
        self.runs: dict[str, LabRun] = {}
        c = self.configs["left"]
        self.controls: dict[str, Any] = {
            "side": w.ToggleButtons(options=["left", "right"], value="left", description="edit"),
            "scenario": w.Dropdown(options=scenario_names(), value=c.scenario, description="scenario"),
            "loop": w.Dropdown(options=["react", "guarded"], value="react", description="loop"),
            **{part: w.Checkbox(value=getattr(c, part), description=part) for part in PARTS},
            "max_steps": w.IntSlider(value=c.max_steps, min=1, max=30, description="max_steps"),
            "token_budget": w.IntSlider(value=c.token_budget or 0, min=0, max=20000, step=250,
                                        description="tokens (0: scenario's)"),
            "threshold": w.IntSlider(value=c.threshold, min=1, max=5, description="intervene after"),
            "wire": w.Dropdown(options=list(WIRES), value=c.wire, description="wire"),
        }
        for control in self.controls.values():  # labels in full (ipywidgets 7 and 8 both take this style)
            control.style = {"description_width": "initial"}
        self.output = w.HTML()
        self._quiet = False
        for name, control in self.controls.items():
            control.observe(self._changed, names="value")
        self.box = w.VBox([w.HBox([self.controls["side"], self.controls["scenario"], self.controls["loop"],
                                   self.controls["wire"]]),
                           w.HBox([self.controls[p] for p in PARTS]),
                           w.HBox([self.controls["max_steps"], self.controls["token_budget"],
                                   self.controls["threshold"]]), self.output])
        self.refresh()

    @property
    def left(self) -> LabRun:
        return self.runs["left"]

    @property
    def right(self) -> LabRun:
        return self.runs["right"]

    def refresh(self, sides: tuple[str, ...] = ("left", "right")) -> None:
        for side in sides:
            self.runs[side] = run_config(self.configs[side])
        self.output.value = render_static(self.runs["left"], self.runs["right"])

    def _show(self, config: LabConfig) -> None:
        """Put a configuration's values in the controls without running anything."""
        self._quiet = True
        try:
            for name in ("scenario", *PARTS, "max_steps", "threshold", "wire"):
                self.controls[name].value = getattr(config, name)
            self.controls["token_budget"].value = config.token_budget or 0
            preset = [name for name, parts in LOOPS.items() if set(parts) == set(config.parts_on)]
            if preset:  # the loop whose parts these are, if any (a custom mix leaves the menu as it was)
                self.controls["loop"].value = preset[0]
        finally:
            self._quiet = False

    def _changed(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        side = self.controls["side"].value
        if change["owner"] is self.controls["side"]:
            self._show(self.configs[side])
            return
        config = self.configs[side]
        if change["owner"] is self.controls["loop"]:
            config = config.with_loop(change["new"])
            self._show(config)
        else:
            values = {name: self.controls[name].value for name in ("scenario", *PARTS, "max_steps", "threshold",
                                                                    "wire")}
            config = LabConfig(**values, token_budget=self.controls["token_budget"].value or None)
        self.configs[side] = config
        self.refresh((side,))
