"""Whether the lock files still match pyproject.toml (`make lint`, issue 44): exit 1, each
mismatch on a line, when they do not.

Offline and deterministic: it compares the files, never asks an index (a new release, a
wheel added to an old one or an index out of reach cannot fail it). For each lock file and
the requirements it was compiled from (requirements.lock: the dependencies;
requirements-dev.lock: those and the dev extra) it checks that

- every requirement is pinned, at a version its specifier takes;
- every pin uv noted as wanted by companion itself is still a requirement (one taken out of
  pyproject.toml leaves the lock stale);
- every pin is wanted by something in the lock (uv's ``# via`` notes);
- every pin carries its files' hashes (pip then installs only those files);

and that a package in both files is pinned at one version in both (`make .venv/.dev`
installs the one on the other).

`make lock` writes locks that pass; a pyproject.toml edited without it fails.

    python tools/check_locks.py [DIR]   # the project's folder, the current one by default
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

#: Each lock file and the extras compiled into it (Makefile: LOCK, DEV_LOCK).
LOCKS = {"requirements.lock": (), "requirements-dev.lock": ("dev",)}
PROJECT = "companion"
#: Python the locks are compiled for (`uv pip compile --python-version`).
PYTHON = "3.11"


@dataclass
class Pin:
    version: Version
    hashes: int = 0
    via: set[str] = field(default_factory=set)


def pins(text: str) -> dict[str, Pin]:
    """A lock file as uv writes it: ``name==version`` lines, each followed by its
    ``--hash=`` lines and ``# via`` notes (on the line or one a line after it)."""
    found: dict[str, Pin] = {}
    pin: Pin | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or line.startswith("#"):
            continue
        if not line[0].isspace():
            name, _, version = stripped.split(";")[0].rstrip(" \\").partition("==")
            pin = found[canonicalize_name(name)] = Pin(Version(version))
        elif pin is not None and stripped.startswith("--hash="):
            pin.hashes += 1
        elif pin is not None and (via := re.fullmatch(r"#\s+(?:via\s+)?(\S[^(]*?)\s*(\(.*\))?", stripped)):
            if via[1] != "via":
                pin.via.add(canonicalize_name(via[1].split("[")[0]))
    return found


def requirements(pyproject: dict, extras: tuple[str, ...]) -> list[Requirement]:
    """What pyproject.toml asks for, with ``extras``, on the locks' Python."""
    project = pyproject["project"]
    wanted = [Requirement(r) for r in project.get("dependencies", [])]
    for extra in extras:
        wanted += [Requirement(r) for r in project.get("optional-dependencies", {}).get(extra, [])]
    env = {"python_version": PYTHON, "python_full_version": f"{PYTHON}.0", "extra": ""}
    return [r for r in wanted if r.marker is None or r.marker.evaluate(env)]


def mismatches(root: Path) -> list[str]:
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    problems = []
    seen: dict[str, tuple[str, Version]] = {}
    for lock, extras in LOCKS.items():
        pinned = pins((root / lock).read_text(encoding="utf-8"))
        for name, pin in sorted(pinned.items()):
            first, version = seen.setdefault(name, (lock, pin.version))
            if version != pin.version:
                problems.append(f"{lock}: {name}=={pin.version} but {first} pins {name}=={version}")
        wanted = requirements(pyproject, extras)
        names = {canonicalize_name(r.name) for r in wanted}
        for r in wanted:
            pin = pinned.get(canonicalize_name(r.name))
            if pin is None:
                problems.append(f"{lock}: {r} is not pinned")
            elif not r.specifier.contains(pin.version, prereleases=True):
                problems.append(f"{lock}: {r} but {r.name}=={pin.version} is pinned")
        for name, pin in sorted(pinned.items()):
            if PROJECT in pin.via and name not in names:
                problems.append(f"{lock}: {name}=={pin.version} is pinned for {PROJECT}, which no longer asks for it")
            elif not pin.via & (set(pinned) | {PROJECT}):
                problems.append(f"{lock}: {name}=={pin.version} is pinned, but nothing in it needs it")
            if not pin.hashes:
                problems.append(f"{lock}: {name}=={pin.version} has no hashes")
    return problems


def main() -> int:
    problems = mismatches(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("The lock files no longer match pyproject.toml: run `make lock` and commit both.", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
