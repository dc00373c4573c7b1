"""The test suite. Its data lives in the repo: ``tests/data/vectors.json`` (the rule
vectors of docs/RULES.md in machine form) and ``docs/RULES.md`` itself."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
VECTORS_FILE = Path(__file__).resolve().parent / "data" / "vectors.json"
