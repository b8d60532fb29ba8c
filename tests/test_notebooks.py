"""The stored notebooks are built from their sources in notebooks/src/ and have been run.

`pytest --nbval` re-runs them and compares outputs; this test catches the other drift: a source
edited without rebuilding (`python notebooks/build.py NN`)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from reference.cli.hint import read_hints
from reference.lessons import EXERCISES, LESSONS

ROOT = Path(__file__).resolve().parent.parent


def test_every_notebook_matches_its_source_and_was_run():
    done = subprocess.run([sys.executable, str(ROOT / "notebooks" / "build.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("lesson", EXERCISES, ids=lambda lesson: lesson.exercise)
def test_every_lesson_has_its_files(lesson):
    paths = [lesson.notebook, lesson.source, f"exercises/{lesson.module}.py", f"solutions/{lesson.module}.py",
             lesson.test_file, lesson.hints_file, f"tests/red_flags/{lesson.exercise}_caught.py"]
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"lesson {lesson.number} ({lesson.exercise}) in reference/lessons.py lacks {missing}"


def test_no_lesson_file_is_missing_from_the_registry():
    registered = {p for lesson in EXERCISES for p in (lesson.notebook, lesson.source, f"exercises/{lesson.module}.py")}
    on_disk = {str(p.relative_to(ROOT)) for p in [*(ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"),
                                                  *(ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"),
                                                  *(ROOT / "exercises").glob("ex[0-9][0-9]*_*.py")]}
    assert on_disk <= registered, f"add a row to reference/lessons.py for {sorted(on_disk - registered)}"


@pytest.mark.parametrize("lesson", EXERCISES, ids=lambda lesson: lesson.exercise)
def test_every_exercise_test_has_exactly_one_hint(lesson):
    tests = re.findall(r"^def (test_\w+)", (ROOT / lesson.test_file).read_text(encoding="utf-8"), re.MULTILINE)
    named = [t for hint in read_hints(lesson) for t in hint.tests]
    assert sorted(named) == sorted(tests), (f"{lesson.hints_file}: each test of {lesson.test_file} is named by one "
                                            f"`<!-- for: ... -->` line; differences: {sorted(set(named) ^ set(tests))}")


def test_the_notebooks_helper_finds_the_kit_from_any_working_folder(tmp_path):
    """notebooks/kit.py locates the repository from its own file, not from the kernel's working folder."""
    script = ("import importlib.util, sys; "  # as a kernel started in notebooks/ imports it, from anywhere else
              f"spec = importlib.util.spec_from_file_location('kit', {str(ROOT / 'notebooks' / 'kit.py')!r}); "
              "kit = sys.modules['kit'] = importlib.util.module_from_spec(spec); spec.loader.exec_module(kit); "
              "print(kit.ROOT); print(kit.load_exercise('ex01').react_loop.__name__); "
              "print(kit.load_exercise('ex02_budget', 'exercises').__name__)")
    done = subprocess.run([sys.executable, "-I", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(ROOT), "react_loop", "ex02_budget_exercises"], done.stdout


def test_the_lessons_registry_imports_nothing_from_the_kit():
    """reference/lessons.py sits at the bottom of the layers: the build and the tests read it cheaply."""
    import ast

    tree = ast.parse((ROOT / "reference" / "lessons.py").read_text(encoding="utf-8"))
    modules = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert all(m in ("__future__", "dataclasses") for m in modules), modules


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.exercise)
def test_every_lesson_poses_its_exercise_early_and_before_the_answer_runs(lesson):
    """The exercise comes within the first five numbered sections, before the solution is loaded."""
    source = (ROOT / lesson.source).read_text(encoding="utf-8")
    headings = re.findall(r"^# ## (\d+)\. (.*)$", source, re.MULTILINE)
    posed = [int(number) for number, title in headings if title.startswith("Exercise")]
    assert posed and posed[0] <= 5, f"{lesson.source}: the exercise should be a section among the first five: {headings}"
    exercise_at = source.index(f"# ## {posed[0]}. Exercise")
    loaded_at = source.find(f'load_exercise("{lesson.exercise}"')
    assert loaded_at == -1 or loaded_at > exercise_at, f"{lesson.source}: the solution runs before the exercise is posed"
    assert f'loopkit(["hint", "{lesson.exercise}", "1"])' in source[exercise_at:loaded_at], \
        f"{lesson.source}: the exercise's section shows its first hint"
