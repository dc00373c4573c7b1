"""The repo stands alone (issue 11): every rule section the code, the tests and the
README cite is in the project's own docs/RULES.md, and nothing points outside the repo."""

import re

import pytest

from tests import DOCS, ROOT

CITED = re.compile(r"RULES\.md,? *§? *(\d+)(?:\.(\d+))?")
SOURCES = [
    p
    for folder in ("companion", "tests", "bench", "templates")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in (".py", ".html", ".md") and "__pycache__" not in p.parts
] + [ROOT / "README.md"]


def sections() -> set[str]:
    text = (DOCS / "RULES.md").read_text(encoding="utf-8")
    found = set(re.findall(r"^## (\d+)\. ", text, flags=re.M))
    found |= set(re.findall(r"^### (\d+\.\d+) ", text, flags=re.M))
    return found


def test_the_docs_are_in_the_repo():
    assert {"RULES.md", "DESIGN.md"} <= {p.name for p in DOCS.iterdir()}
    assert len(sections()) > 50


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_rule_section_exists(path):
    known = sections()
    text = path.read_text(encoding="utf-8")
    cited = {f"{a}.{b}" if b else a for a, b in CITED.findall(text)}
    assert cited <= known, sorted(cited - known)


@pytest.mark.parametrize(
    "path", SOURCES + [DOCS / "RULES.md", DOCS / "DESIGN.md", ROOT / "Makefile"], ids=lambda p: str(p.relative_to(ROOT))
)
def test_nothing_points_outside_the_repo(path):
    text = path.read_text(encoding="utf-8")
    outside = ["../" + "shared", "shared/" + "vectors", "STACK" + ".md", "STYLE" + ".md"]
    assert not [word for word in outside if word in text]
