"""Mutation testing of what a branch changed in the engines (`make mutants-changed`, issue 47).

The whole run (`make mutants`) takes hours; CI and contributors run this instead. It finds
the lines of the engine layer (pyproject.toml's ``[tool.mutmut] only_mutate``) changed since
``git merge-base HEAD BASE`` (committed or not), the functions and methods holding them
(mutmut mutates function bodies: a function is its unit), runs mutmut on those functions'
mutants only (after mapping the tests again when a test changed too), and prints their
score (tools/mutants_report.py). It fails when one survives that docs/MUTANTS.md does not
list as equivalent: each survivor is a rule the tests do not hold yet (``mutmut show NAME``
prints its change).

    python tools/mutants_changed.py [--base main] [--max-children 2] [--dry-run]
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import re
import subprocess
import sys
import tomllib
from pathlib import Path

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
SEPARATOR = "ǁ"  # mutmut's, between a class and its method in a mutant's name


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def engine_patterns(pyproject: Path = Path("pyproject.toml")) -> list[str]:
    return list(tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["mutmut"]["only_mutate"])


def changed_lines(base: str, patterns: list[str]) -> dict[str, set[int]]:
    """Each engine file changed since ``base`` (the working tree against it), its new lines."""
    names = [n for n in git("diff", "--name-only", base, "--").split() if any(fnmatch.fnmatch(n, p) for p in patterns)]
    lines: dict[str, set[int]] = {}
    for name in names:
        if not Path(name).exists():
            continue
        for start, count in HUNK.findall(git("diff", "-U0", base, "--", name)):
            n = 1 if count == "" else int(count)
            # a hunk that only removes lines still changes the function around it
            lines.setdefault(name, set()).update(range(int(start), int(start) + max(n, 1)))
    return lines


def tests_changed(base: str) -> list[str]:
    """The test files changed or added since ``base``. mutmut maps the tests to the functions
    they call only for tests it has not seen: a test that was there and now calls more of the
    engines would not be run against those functions until its map is made again."""
    changed = git("diff", "--name-only", base, "--", "tests").split()
    return changed + git("ls-files", "--others", "--exclude-standard", "tests").split()


#: mutmut's map of which tests call which functions (made again when it is missing).
STATS = Path("mutants/mutmut-stats.json")


def functions_on(source: str, lines: set[int]) -> set[str]:
    """mutmut's names for the module-level functions and methods holding any of ``lines``."""
    found = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                if lines & set(range(first, (child.end_lineno or child.lineno) + 1)):
                    found.add(prefix + child.name)
            elif isinstance(child, ast.ClassDef) and not prefix:
                visit(child, f"x{SEPARATOR}{child.name}{SEPARATOR}")

    for child in ast.iter_child_nodes(ast.parse(source)):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            visit(ast.Module(body=[child], type_ignores=[]), "x_")
        elif isinstance(child, ast.ClassDef):
            visit(child, f"x{SEPARATOR}{child.name}{SEPARATOR}")
    return found


def mutant_globs(base: str) -> list[str]:
    globs = []
    for name, lines in sorted(changed_lines(base, engine_patterns()).items()):
        module = name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        source = Path(name).read_text(encoding="utf-8")
        globs += [f"{module}.{function}__mutmut_*" for function in sorted(functions_on(source, lines))]
    return globs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the branch or commit to compare with (its merge base)")
    parser.add_argument("--max-children", default="2")
    parser.add_argument("--dry-run", action="store_true", help="print the mutants' names only")
    args = parser.parse_args(argv)

    try:
        base = git("merge-base", "HEAD", args.base).strip()
    except subprocess.CalledProcessError as e:
        print(f"no merge base with {args.base!r} (MUTANTS_BASE): {e.stderr.strip()}", file=sys.stderr)
        return 2
    globs = mutant_globs(base)
    if not globs:
        print(f"no engine function changed since {args.base} ({base[:12]}): nothing to mutate")
        return 0
    print(f"the engine functions changed since {args.base} ({base[:12]}):", *globs, sep="\n    ")
    if args.dry_run:
        return 0
    if tests_changed(base) and STATS.exists():
        print("tests changed too: mutmut maps them to the engines' functions again")
        STATS.unlink()
    mutmut = Path(sys.executable).with_name("mutmut")
    run = subprocess.run([str(mutmut), "run", "--max-children", args.max_children, *globs])
    if run.returncode:
        return run.returncode
    report = [sys.executable, str(Path(__file__).with_name("mutants_report.py")), "--min", "100", "--list", *globs]
    return subprocess.run(report).returncode


if __name__ == "__main__":
    sys.exit(main())
