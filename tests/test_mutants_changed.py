"""`make mutants-changed` (issue 47, tools/mutants_changed.py) mutates only the engine
functions a branch changed, and maps the tests again when a test changed too."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "mutants_changed.py"
ENGINE = """def one():
    return 1


def two():
    return 2
"""


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


@pytest.fixture
def branch(tmp_path, monkeypatch):
    """A repository whose main has an engine module and its test, checked out on a branch."""
    (tmp_path / "companion" / "games").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.mutmut]\nonly_mutate = ["companion/games/*.py"]\n')
    (tmp_path / "companion" / "games" / "x.py").write_text(ENGINE)
    (tmp_path / "tests" / "test_x.py").write_text("def test_one():\n    assert True\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "main")
    git(tmp_path, "checkout", "-q", "-b", "change")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def load():
    spec = importlib.util.spec_from_file_location("mutants_changed", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_only_the_functions_changed_are_named(branch):
    (branch / "companion" / "games" / "x.py").write_text(ENGINE.replace("return 2", "return 3"))
    said = subprocess.run(
        [sys.executable, str(TOOL), "--dry-run"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert "companion.games.x.x_two__mutmut_*" in said and "x_one" not in said


def test_a_test_changed_or_added_since_main_maps_the_tests_again(branch):
    tool = load()
    base = subprocess.run(["git", "merge-base", "HEAD", "main"], capture_output=True, text=True).stdout.strip()
    assert tool.tests_changed(base) == []
    (branch / "tests" / "test_x.py").write_text("def test_one():\n    assert 1 == 1\n")  # an assertion more
    (branch / "tests" / "test_y.py").write_text("def test_two():\n    assert 2\n")
    assert tool.tests_changed(base) == ["tests/test_x.py", "tests/test_y.py"]
