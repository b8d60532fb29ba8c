"""How `loopkit grade` reads which kind of file a candidate is (docs/grading.md), and its command line."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reference.cli.main import main
from reference.grade.kinds import NotACandidate, detect

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "candidate.py"
    path.write_text(source, encoding="utf-8")
    return path


@pytest.mark.parametrize("source, kind", [
    ("def loop(episode, max_steps=8): ...", "kit"),
    ("def react_loop(episode, max_steps=8): ...", "kit"),
    ("def agent(llm, run_tool, user_message): ...", "plain"),
    ("import openai\ndef agent(client, run_tool, user_message, tools): client.chat.completions.create()", "openai-chat"),
    ("import openai\ndef agent(client, run_tool, user_message, tools): client.responses.create()", "openai-responses"),
    ("from anthropic import Anthropic\ndef agent(client, run_tool, user_message, tools): ...", "anthropic"),
    ("WIRE = 'anthropic'\ndef agent(client, run_tool, user_message, tools): ...", "anthropic"),
    ("import openai\nasync def agent(client, run_tool, user_message, tools): ...", "openai-chat"),
])
def test_the_kind_is_read_from_the_source(tmp_path, source, kind):
    assert detect(write(tmp_path, source)).kind == kind


def test_async_is_noticed(tmp_path):
    assert detect(write(tmp_path, "import openai\nasync def agent(client, run_tool, user_message): ...")).is_async


@pytest.mark.parametrize("source, says", [
    ("def helper(x): ...", "defines no loop"),
    ("def agent(model, tools): ...", "the first parameter of `agent` is `model`"),
    ("def agent(client, run_tool): ...", "must import openai or anthropic"),
    ("async def agent(llm, run_tool, user_message): ...", "async clients"),
    ("def loop(:", "not valid Python"),
    ("x = " + "(" * 1000 + ")" * 1000, "not valid Python"),
])
def test_a_file_of_no_kind_is_told_why(tmp_path, source, says):
    with pytest.raises(NotACandidate, match=".*" + says.replace("(", r"\(").replace(")", r"\)")):
        detect(write(tmp_path, source))


def test_the_file_is_read_not_run(tmp_path):
    marker = tmp_path / "ran"
    path = write(tmp_path, f"open({str(marker)!r}, 'w').write('x')\ndef loop(episode, max_steps=8): ...")
    assert detect(path).kind == "kit" and not marker.exists()


def test_the_command_reports_a_file_it_cannot_grade(tmp_path, capsys):
    assert main(["grade", str(write(tmp_path, "x = 1")), "--format", "json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["kind"] is None and report["total"] == 0 and "defines no loop" in report["problem"]


def test_the_command_grades_in_markdown_and_html(tmp_path, capsys):
    template = str(ROOT / "docs/candidates/kit_api.py")
    assert main(["grade", template, "--scenarios", "quick"]) == 0
    text = capsys.readouterr().out
    total = int(re.search(r"\*\*Total: (\d+)\*\*", text).group(1))
    assert abs(total - 60) <= 5 and "| Loop skeleton | yes | 30 |" in text and "Ask: " in text
    out = tmp_path / "grade.html"
    assert main(["grade", template, "--scenarios", "quick", "--format", "html", "-o", str(out)]) == 0
    assert f"<b>Total: {total}</b>" in out.read_text(encoding="utf-8")


def test_fail_under_gives_scripts_an_exit_code(capsys):
    """Below N points: exit code 1, the report written all the same; at N or above: 0."""
    template = str(ROOT / "docs/candidates/kit_api.py")
    assert main(["grade", template, "--scenarios", "quick", "--format", "json", "--fail-under", "101"]) == 1
    out, err = capsys.readouterr()
    total = json.loads(out)["total"]
    assert 0 < total <= 100 and f"{total} points, under --fail-under 101" in err
    assert main(["grade", template, "--scenarios", "quick", "--format", "json", "--fail-under", str(total)]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == total


def test_an_unknown_scenario_set_is_refused(capsys):
    assert main(["grade", str(ROOT / "docs/candidates/kit_api.py"), "--scenarios", "nope"]) == 2
    assert "no scenario set 'nope'" in capsys.readouterr().err
