"""`loopkit card`: the interviewer's printable card from the question bank (reference/interview/).

    loopkit card --lang zh --format html -o card_zh.html
    loopkit card --lesson 3                    # one lesson's questions, Markdown to stdout
"""
from __future__ import annotations

import argparse
import sys

from ..interview.bank import BankError, load_bank
from ..interview.card import render_html, render_markdown


def cmd_card(args: argparse.Namespace) -> int:
    try:
        bank = load_bank(args.bank)
        render = render_html if args.format == "html" else render_markdown
        text = render(bank, args.lang, args.lesson)
    except BankError as exc:
        print(f"loopkit: {exc}", file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0
