"""Render the interviewer card from the question bank, as Markdown or as printable HTML (A4).

The command is `loopkit card` (reference/cli/card.py):

    loopkit card --lang zh --format html -o card_zh.html
    loopkit card --lang en --lesson 3            # one lesson's questions, Markdown to stdout

The HTML is one self-contained file (no scripts, no external assets): questions on the left, what
to listen for on the right, then the 9-item scoring table with a score column and the 60 vs 90
contrast.
"""
from __future__ import annotations

import html
import re
from typing import Optional

from .bank import LANGS, Bank

LABELS = {
    "card": {"en": "Interviewer card", "zh": "面试官用卡"},
    "lesson": {"en": "Lesson {n}", "zh": "第 {n} 课"},
    "opener": {"en": "Open with", "zh": "开场"},
    "variants": {"en": "Or ask", "zh": "换个问法"},
    "ask": {"en": "Ask", "zh": "问"},
    "listen": {"en": "Listen for", "zh": "听什么"},
    "layers": {"en": "Five follow-up layers", "zh": "五层追问"},
    "questions": {"en": "Questions", "zh": "问题"},
    "strong": {"en": "A strong answer", "zh": "好的回答"},
    "signal": {"en": "What it tells you", "zh": "说明什么"},
    "weak": {"en": "Weak answer", "zh": "弱回答"},
    "flags": {"en": "Red flags", "zh": "危险信号"},
    "flags_hint": {"en": "Each one suggests a memorised answer, not a built loop.",
                   "zh": "听到这些，多半是背过题而不是写过循环。"},
    "pressure": {"en": "pressure", "zh": "压力面"},
    "pressure_hint": {"en": "optional, not every candidate gets this far",
                      "zh": "可选，不必每位候选人都问到"},
    "rubric": {"en": "Scoring card", "zh": "评分卡"},
    "item": {"en": "Item", "zh": "考察项"},
    "earns": {"en": "Earned by", "zh": "得分条件"},
    "check": {"en": "How to check", "zh": "怎么验证"},
    "score": {"en": "Score", "zh": "得分"},
    "behaviour": {"en": "Run shows", "zh": "运行可见"},
    "ask_only": {"en": "Ask", "zh": "追问"},
    "bonus": {"en": "bonus", "zh": "加分"},
    "total": {"en": "Total", "zh": "合计"},
    "sixty": {"en": "60-point answer", "zh": "60 分答案"},
    "ninety": {"en": "90-point answer", "zh": "90 分答案"},
    "contrast": {"en": "60 vs 90", "zh": "60 分与 90 分"},
    "sheets": {"en": "Two A4 pages: the questions on the first; red flags, scoring and 60 vs 90 on the second. "
                     "Print double-sided on one sheet.",
               "zh": "两页 A4：第一页是问题；第二页是危险信号、评分卡和 60 分与 90 分。双面打印在一张纸上。"},
    "scale": {"en": "Pass line {pass_line}, top {top}; each item scores its share of the runs that show it; "
                    "a red flag costs {cost}; a bonus item is asked, up to +{bonus}.",
              "zh": "及格线 {pass_line} 分，满分 {top} 分；每项按能体现它的场景中做对的比例给分；每个危险信号扣 {cost} 分；"
                    "加分项靠追问，每项最多 +{bonus}。"},
}


def scale_note(bank: Bank, lang: str) -> str:
    """The scale in one line, from the bank: the same figures the grader uses."""
    bonus = max((item.points for item in bank.rubric if item.bonus), default=0)
    return label("scale", lang, pass_line=bank.scale.pass_line, top=bank.scale.top,
                 cost=bank.scale.red_flag_cost, bonus=bonus)

CSS = """
@page { size: A4; margin: 12mm }
* { box-sizing: border-box }
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC",
       "Microsoft YaHei", Arial, sans-serif; font-size: 7.6pt; line-height: 1.2; color: #111;
       margin: 0 auto; max-width: 186mm }
h1 { font-size: 12pt; margin: 0 } h2 { font-size: 9.5pt; margin: 2.2mm 0 1mm;
     border-bottom: 1px solid #999; break-after: avoid } p { margin: .4mm 0 }
ul { margin: .3mm 0; padding-left: 3.6mm } li { margin: .1mm 0 }
code { font-family: "Noto Sans Mono", monospace; font-size: 95% }
.sub { color: #555; margin-bottom: 1mm }
.rows { display: grid; grid-template-columns: 22% 50% 28%; border-top: 1px solid #bbb }
.q, .a, .b { padding: .9mm 1.5mm; border-bottom: 1px solid #bbb }
.q { font-weight: 600; background: #f4f4f4 } .b { background: #fafafa } .n { color: #666; margin-right: 1mm }
.head { font-size: 7pt; text-transform: uppercase; color: #555; background: #e8e8e8;
        padding: .5mm 1.5mm; font-weight: 600 }
.lab { font-weight: 600 } .tag { font-size: 6.8pt; border: 1px solid #a33; color: #a33;
       border-radius: 2px; padding: 0 .8mm; margin-left: 1mm; font-weight: 600 }
.hint { color: #666; font-weight: 400; font-size: 7pt } .weak { color: #733 }
.flags { columns: 2; column-gap: 5mm } .flags li { break-inside: avoid }
table { width: 100%; border-collapse: collapse }
th, td { border: 1px solid #999; padding: .6mm 1.2mm; vertical-align: top; text-align: left }
tr { break-inside: avoid } th { background: #e8e8e8; font-size: 7pt }
td.score { width: 11mm } col.c0 { width: 4mm } col.c1 { width: 17% } col.c2 { width: 27% } .ev { font-size: 6.8pt; color: #555; font-weight: 600 }
.contrast { display: grid; grid-template-columns: 1fr 1fr; gap: 2.5mm }
.keep { break-inside: avoid } .page2 { break-before: page }  /* the card is two pages: see the "sheets" label */
.box { border: 1px solid #999; padding: 1mm 1.8mm } .box h3 { font-size: 8.6pt; margin: 0 0 .6mm }
@media screen { body { padding: 8mm } }
"""


def label(key: str, lang: str, **kw) -> str:
    return LABELS[key][lang].format(**kw)


def _colon(lang: str) -> str:
    return "：" if lang == "zh" else ":"


def _space(lang: str) -> str:
    """What follows a colon or a closing bracket before more text: nothing after a full-width one."""
    return "" if lang == "zh" else " "


def _md_lead(key: str, lang: str) -> str:
    """A bold label and its colon in Markdown. In Chinese the colon goes after the closing `**`: a `**` between
    a full-width colon and a CJK character does not close the bold (CommonMark's flanking rule)."""
    return f"**{label(key, lang)}**：" if lang == "zh" else f"**{label(key, lang)}:** "


def _paren(text: str, lang: str) -> str:
    return f"（{text}）" if lang == "zh" else f"({text})"


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")


def _rows(bank: Bank, lesson: Optional[int]) -> list[dict]:
    """The question rows of the card: the five layers, or one lesson's questions."""
    if lesson is None:
        return [{"q": layer.question, "strong": layer.strong_answer, "signal": layer.signal,
                 "weak": layer.weak_answer, "flags": [], "pressure": layer.pressure}
                for layer in bank.layers]
    return [{"q": item.question, "strong": item.strong_answer, "signal": None, "weak": None,
             "flags": item.red_flags, "pressure": False}
            for item in bank.lesson(lesson).questions]


def _title(bank: Bank, lang: str, lesson: Optional[int]) -> tuple[str, str]:
    if lesson is None:
        return bank.title[lang], label("card", lang)
    chapter = bank.lesson(lesson)
    return (f"{label('lesson', lang, n=lesson)} · {chapter.title[lang]}",
            bank.title[lang])


# ---------------------------------------------------------------- Markdown

def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(bank: Bank, lang: str = "en", lesson: Optional[int] = None) -> str:
    _check_lang(lang)
    title, sub = _title(bank, lang, lesson)
    out = [f"# {title}", "", f"*{sub}*", ""]
    if lesson is None:
        out += [f"## {label('opener', lang)}", "", bank.opener[lang], "",
                _md_lead("variants", lang).rstrip(), ""]
        out += [f"- {v[lang]}" for v in bank.opener_variants] + [""]
        out += [f"## {label('layers', lang)}", ""]
    else:
        out += [f"## {label('questions', lang)}", ""]
    for n, row in enumerate(_rows(bank, lesson), 1):
        hint = f"{label('pressure', lang)}{_colon(lang)}{_space(lang)}{label('pressure_hint', lang)}"
        tag = f" *{_paren(hint, lang)}*" if row["pressure"] else ""
        out += [f"### {n}. {row['q'][lang]}{tag}", "", _md_lead("strong", lang).rstrip(), ""]
        out += [f"- {p[lang]}" for p in row["strong"]] + [""]
        if row["signal"] is not None:
            out += [_md_lead("signal", lang) + row["signal"][lang], ""]
        if row["weak"] is not None:
            out += [_md_lead("weak", lang) + row["weak"][lang], ""]
        if row["flags"]:
            out += [_md_lead("flags", lang).rstrip(), ""] + [f"- {f[lang]}" for f in row["flags"]] + [""]
    if lesson is None:
        out += [f"## {label('flags', lang)}", "", f"*{label('flags_hint', lang)}*", ""]
        out += [f"- {f[lang]}" for f in bank.red_flags] + [""]
    out += [f"## {label('rubric', lang)}", "",
            f"| # | {label('item', lang)} | {label('earns', lang)} | {label('check', lang)} | {label('score', lang)} |",
            "|---|---|---|---|---|"]
    for n, item in enumerate(bank.rubric, 1):
        name = item.title[lang] + (_space(lang) + _paren(label("bonus", lang), lang) if item.bonus else "")
        check = f"{label('ask_only', lang)}{_colon(lang)}{_space(lang)}{item.ask[lang]}"
        if item.evidence == "behaviour":
            check = f"{label('behaviour', lang)}{_colon(lang)}{_space(lang)}{item.behaviour[lang]}<br>{check}"
        out.append(f"| {n} | {_md_cell(name)} | {_md_cell(item.earns[lang])} | {_md_cell(check)} | "
                   f"{'+' if item.bonus else ''}/ {item.points} |")
    out += [f"| | **{label('total', lang)}** | | | / {bank.scale.top} |", "", f"*{scale_note(bank, lang)}*", ""]
    out += [f"## {label('contrast', lang)}", ""]
    for key in ("sixty", "ninety"):
        answer = getattr(bank.answers, key)
        out += [f"### {label(key, lang)}", "", answer.summary[lang], ""]
        out += [f"- {p[lang]}" for p in answer.points] + [""]
    return "\n".join(out)


# ---------------------------------------------------------------- HTML

def _h(text: str) -> str:
    """Escape for HTML, then show `backticked` spans as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=True))


def _ul(items, lang: str) -> str:
    return "<ul>" + "".join(f"<li>{_h(i[lang])}</li>" for i in items) + "</ul>"


def render_html(bank: Bank, lang: str = "en", lesson: Optional[int] = None) -> str:
    _check_lang(lang)
    title, sub = _title(bank, lang, lesson)
    html_lang = "zh-Hans" if lang == "zh" else "en"
    body = [f"<h1>{_h(title)}</h1>", f'<div class="sub">{_h(sub)}</div>']
    if lesson is None:
        body += [f'<div class="sub">{_h(label("sheets", lang))}</div>', f"<h2>{_h(label('opener', lang))}</h2>", f"<p><b>{_h(bank.opener[lang])}</b></p>",
                 f'<p><span class="lab">{_h(label("variants", lang))}{_colon(lang)}</span></p>',
                 _ul(bank.opener_variants, lang), f"<h2>{_h(label('layers', lang))}</h2>"]
    else:
        body.append(f"<h2>{_h(label('questions', lang))}</h2>")
    notes_head = label("flags", lang) if lesson is not None else f'{label("signal", lang)} · {label("weak", lang)}'
    body += ['<div class="rows">', f'<div class="head">{_h(label("ask", lang))}</div>',
             f'<div class="head">{_h(label("listen", lang))}{_colon(lang)}{_space(lang)}{_h(label("strong", lang))}</div>',
             f'<div class="head">{_h(notes_head)}</div>']
    for n, row in enumerate(_rows(bank, lesson), 1):
        tag = ""
        if row["pressure"]:
            tag = (f'<span class="tag">{_h(label("pressure", lang))}</span>'
                   f'<div class="hint">{_h(label("pressure_hint", lang))}</div>')
        body.append(f'<div class="q"><span class="n">{n}.</span>{_h(row["q"][lang])}{tag}</div>')
        body.append(f'<div class="a">{_ul(row["strong"], lang)}</div>')
        notes = []
        if row["signal"] is not None:
            notes.append(f'<p><span class="lab">{_h(label("signal", lang))}{_colon(lang)}</span>{_space(lang)}'
                         f'{_h(row["signal"][lang])}</p>')
        if row["weak"] is not None:
            notes.append(f'<p class="weak"><span class="lab">{_h(label("weak", lang))}{_colon(lang)}</span>'
                         f'{_space(lang)}{_h(row["weak"][lang])}</p>')
        if row["flags"]:
            notes.append(f'<div class="weak">{_ul(row["flags"], lang)}</div>')
        body.append(f'<div class="b">{"".join(notes)}</div>')
    body.append("</div>")
    if lesson is None:
        body += [f'<h2 class="page2">{_h(label("flags", lang))}</h2>', f'<p class="hint">{_h(label("flags_hint", lang))}</p>',
                 '<ul class="flags">' + "".join(f"<li>{_h(f[lang])}</li>" for f in bank.red_flags) + "</ul>"]
    body += [f"<h2>{_h(label('rubric', lang))}</h2>", "<table><colgroup><col class=\"c0\"><col class=\"c1\"><col class=\"c2\"><col><col></colgroup>"
             "<thead><tr><th>#</th>"
             + "".join(f"<th>{_h(label(k, lang))}</th>" for k in ("item", "earns", "check", "score"))
             + "</tr></thead><tbody>"]
    for n, item in enumerate(bank.rubric, 1):
        bonus = f' <span class="tag">{_h(label("bonus", lang))}</span>' if item.bonus else ""
        check = []
        if item.evidence == "behaviour":
            check.append(f'<span class="ev">{_h(label("behaviour", lang))}{_colon(lang)}</span>{_space(lang)}'
                         f'{_h(item.behaviour[lang])}<br>')
        check.append(f'<span class="ev">{_h(label("ask_only", lang))}{_colon(lang)}</span>{_space(lang)}{_h(item.ask[lang])}')
        body.append(f"<tr><td>{n}</td><td><b>{_h(item.title[lang])}</b>{bonus}</td>"
                    f"<td>{_h(item.earns[lang])}</td><td>{''.join(check)}</td>"
                    f"<td class=\"score\">{'+' if item.bonus else ''}/ {item.points}</td></tr>")
    body.append(f'<tr><td></td><td><b>{_h(label("total", lang))}</b></td><td></td><td></td>'
                f'<td class="score">/ {bank.scale.top}</td></tr></tbody></table>'
                f'<p class="hint">{_h(scale_note(bank, lang))}</p>')
    body += [f'<div class="keep"><h2>{_h(label("contrast", lang))}</h2><div class="contrast">']
    for key in ("sixty", "ninety"):
        answer = getattr(bank.answers, key)
        body.append(f'<div class="box"><h3>{_h(label(key, lang))}</h3><p>{_h(answer.summary[lang])}</p>'
                    f"{_ul(answer.points, lang)}</div>")
    body.append("</div></div>")
    return (f'<!DOCTYPE html>\n<html lang="{html_lang}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{_h(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")

