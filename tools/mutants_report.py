"""The mutation score of each engine module, from mutmut's results (`make mutants`, issue 47).

mutmut keeps, next to each mutated copy of a module in ``mutants/`` (git-ignored), a
``<module>.py.meta`` JSON file: each mutant's exit code (1 or 3: a test failed, killed; 0:
every test passed, survived; 33 or 5: no test runs the function; 36, 24, -24, 152, 255: a
timeout, counted as killed: the tests did not pass) and how long its tests took. A survivor
listed in docs/MUTANTS.md (its name in backquotes) is equivalent: no behaviour changes, so
no test can kill it. The score is killed / (mutants - equivalent).

    python tools/mutants_report.py [--min 90] [--list] [MUTANT_GLOB ...]

``--min`` fails (exit 1) when a module scores below it or has unchecked mutants; ``--list`` prints each survivor not
listed as equivalent (``mutmut show NAME`` prints its change); globs keep only those mutants.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import sys
from pathlib import Path

KILLED = {1, 3, 37}
TIMEOUT = {36, 24, -24, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}
EQUIVALENT_NAME = re.compile(r"`(companion\.[\w.ǁ]+__mutmut_\d+)`")


def equivalents(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return set(EQUIVALENT_NAME.findall(path.read_text(encoding="utf-8")))


COLUMNS = ("mutants", "killed", "timeout", "survived", "equivalent", "no tests", "unchecked")


def count(codes: dict[str, int | None], listed: set[str], survivors: list[str]) -> dict[str, int]:
    """A module's mutants by verdict; its survivors (and those no test runs) appended to ``survivors``."""
    row = dict.fromkeys(COLUMNS, 0)
    for name, code in codes.items():
        row["mutants"] += 1
        if code in KILLED:
            row["killed"] += 1
        elif code in TIMEOUT:
            row["timeout"] += 1
        elif name in listed:
            row["equivalent"] += 1
        elif code in SURVIVED:
            row["survived"] += 1
            survivors.append(name)
        elif code in NO_TESTS:
            row["no tests"] += 1
            survivors.append(name)
        else:
            row["unchecked"] += 1
    return row


def score(row: dict[str, int]) -> float:
    """Killed (a timeout too: the tests did not pass), in percent of the mutants checked and
    not listed as equivalent."""
    judged = row["mutants"] - row["equivalent"] - row["unchecked"]
    return 100.0 * (row["killed"] + row["timeout"]) / judged if judged else 100.0


def module_of(meta: Path, root: Path) -> str:
    return str(meta.relative_to(root))[: -len(".py.meta")].replace("/", ".").removesuffix(".__init__")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=float, default=None, help="fail below this score (percent) in any module")
    parser.add_argument("--list", action="store_true", help="print the survivors not listed as equivalent")
    parser.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's folder")
    parser.add_argument("--equivalents", type=Path, default=Path("docs/MUTANTS.md"))
    parser.add_argument("globs", nargs="*", help="only the mutants whose names match one of these")
    args = parser.parse_args(argv)

    metas = sorted(args.mutants.glob("companion/**/*.py.meta"))
    if not metas:
        print(f"no results in {args.mutants}/: run `make mutants` first", file=sys.stderr)
        return 2
    listed = equivalents(args.equivalents)
    rows, survivors, low = [], [], []
    totals = dict.fromkeys(COLUMNS, 0)
    totals_time = 0.0
    for meta in metas:
        data = json.loads(meta.read_text(encoding="utf-8"))
        codes = data["exit_code_by_key"]
        if args.globs:
            codes = {k: v for k, v in codes.items() if any(fnmatch.fnmatch(k, g) for g in args.globs)}
        if not codes:
            continue
        row = count(codes, listed, survivors)
        seconds = sum(float(d) for k, d in data.get("durations_by_key", {}).items() if k in codes)
        rows.append((module_of(meta, args.mutants), row, score(row), seconds))
        for key in totals:
            totals[key] += row[key]
        totals_time += seconds
        if args.min is not None and (score(row) < args.min or row["unchecked"]):
            low.append(module_of(meta, args.mutants))

    header = f"{'module':<28} {'mutants':>7} {'killed':>7} {'timeout':>7} {'survived':>8} {'equiv.':>6} {'no tests':>8}"
    header += f" {'unchecked':>9} {'score':>7} {'time':>8}"
    print(header)
    print("-" * len(header))
    for name, row, percent, seconds in [*rows, ("all", totals, score(totals), totals_time)]:
        line = f"{name:<28} {row['mutants']:>7} {row['killed']:>7} {row['timeout']:>7} {row['survived']:>8}"
        line += f" {row['equivalent']:>6}"
        print(line + f" {row['no tests']:>8} {row['unchecked']:>9} {percent:>6.1f}% {seconds:>7.0f}s")
    if args.list:
        for name in sorted(survivors):
            print("survived:", name)
    if low:
        print(f"below {args.min:g}%: {', '.join(low)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
