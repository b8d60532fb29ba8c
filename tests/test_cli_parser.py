"""`loopkit`'s parser builds only the command it runs: the same help and arguments as the whole parser, and a
process that imports the kit's modules for that command alone (reference/cli/main.py)."""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from importlib import import_module

import pytest

from reference.cli.main import COMMANDS, build_parser, command_named


def help_text(parser, argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        parser.parse_args(argv)
    assert exit_.value.code == 0, argv
    return out.getvalue()


def test_the_top_level_help_lists_every_command_as_the_whole_parser_does():
    whole = help_text(build_parser(), ["--help"])
    assert help_text(build_parser([]), ["--help"]) == whole
    assert all(name in whole for name in COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_commands_help_is_the_same_built_alone(name):
    whole = help_text(build_parser(), [name, "--help"])
    assert help_text(build_parser([name]), [name, "--help"]) == whole
    assert whole.startswith(f"usage: loopkit {name}")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_names_a_function_its_module_has(name):
    _, module, function = COMMANDS[name]
    assert callable(getattr(import_module(f"reference.cli.{module}"), function))


def test_the_command_is_the_first_word_that_is_not_an_option():
    assert command_named(["--help", "run", "happy-path"]) == "run"
    assert command_named(["grade", "run.py"]) == "grade"
    assert command_named(["nosuch", "run"]) is None  # argparse refuses the unknown word, as before
    assert command_named([]) is None


def test_the_wrong_word_is_refused_with_the_list_of_commands(capsys):
    from reference.cli.main import main
    with pytest.raises(SystemExit) as exit_:
        main(["nosuch"])
    assert exit_.value.code == 2
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err


def test_a_command_imports_its_own_module_and_not_the_others():
    code = ("import sys; from reference.cli.main import build_parser, command_named; "
            "assert command_named(['trace', 'x.jsonl']) == 'trace'; "
            "build_parser(['trace']).parse_args(['trace', 'x.jsonl']); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('reference.'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    commands = {f"reference.cli.{module}" for _, module, _ in COMMANDS.values()}
    assert not loaded & commands, sorted(loaded & commands)
    assert not {m for m in loaded if m.startswith(("reference.grade", "reference.sandbox", "reference.runs"))}, loaded
