"""The lock files carry hashes and match pyproject.toml (issue 44): `make lint` runs
tools/check_locks.py, which fails when pyproject.toml was changed without `make lock`."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = ("pyproject.toml", "requirements.lock", "requirements-dev.lock")


def pinned(name: str) -> str:
    """The version requirements.lock pins ``name`` at."""
    return re.search(rf"^{name}==(\S+)", (ROOT / "requirements.lock").read_text(), re.M)[1]


def check(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "check_locks.py"), str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONDONTWRITEBYTECODE": "1"},
    )


def test_the_lock_files_match_pyproject_and_carry_hashes():
    done = check(ROOT)
    assert done.returncode == 0, done.stderr
    for lock in FILES[1:]:
        text = (ROOT / lock).read_text()
        assert "--generate-hashes" in text.splitlines()[1] and "--hash=sha256:" in text
    assert "pyicu" not in (ROOT / "requirements.lock").read_text()  # names.py reads its own table


@pytest.mark.parametrize(
    "old, new, lock, says",
    [
        ('"segno>=1.6",', '"segno>=1.6",\n    "requests>=2.0",', "requirements.lock", "requests>=2.0 is not pinned"),
        ('"flask>=3.1",', '"flask>=99",', "requirements.lock", "flask>=99 but flask=={flask} is pinned"),
        (
            '"segno>=1.6",',
            "",
            "requirements.lock",
            "segno=={segno} is pinned for companion, which no longer asks for it",
        ),
        ('"ruff>=0.6",', '"ruff>=0.6",\n    "black>=24",', "requirements-dev.lock", "black>=24 is not pinned"),
    ],
)
def test_a_dependency_changed_without_make_lock_fails_lint(tmp_path, old, new, lock, says):
    for name in FILES:
        shutil.copy(ROOT / name, tmp_path / name)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert old in pyproject
    (tmp_path / "pyproject.toml").write_text(pyproject.replace(old, new))
    done = check(tmp_path)
    says = says.format(flask=pinned("flask"), segno=pinned("segno"))
    assert done.returncode == 1 and f"{lock}: {says}" in done.stderr.splitlines()


def test_a_lock_without_hashes_or_out_of_step_with_the_other_fails_lint(tmp_path):
    for name in FILES:
        shutil.copy(ROOT / name, tmp_path / name)
    serve = (ROOT / "requirements.lock").read_text()
    unhashed = "".join(line for line in serve.splitlines(keepends=True) if "--hash=" not in line)
    flask = pinned("flask")
    (tmp_path / "requirements.lock").write_text(unhashed.replace(f"flask=={flask} \\", "flask==3.0.0"))
    done = check(tmp_path).stderr.splitlines()
    assert "requirements.lock: flask==3.0.0 has no hashes" in done
    assert f"requirements-dev.lock: flask=={flask} but requirements.lock pins flask==3.0.0" in done
