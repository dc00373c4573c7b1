"""The repo stands alone (issue 11): every rule section the code, the tests and the
README cite is in the project's own docs/RULES.md, and nothing points outside the repo."""

import re
import tempfile

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


def test_every_setting_is_in_the_readme_table_and_its_env_file():
    """Issue 14: the club section lists every COMPANION_* variable, once in the table and
    once in the example companion.env; a setting the app adds must be documented."""
    from flask import Flask

    from companion import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"SECRET_KEY": "x", "DATABASE": f"{folder}/x.db"}, instance_path=folder)
    extensions = ("COMPRESS_", "RATELIMIT_", "WTF_")
    ours = {k for k in set(app.config) - set(Flask.default_config) if not k.startswith(extensions)}
    ours |= {"INSTANCE_PATH", "SECRET_KEY"}  # read before the config exists; Flask's own key
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `COMPANION_([A-Z_]+)` \|", readme, flags=re.M))
    env_file = readme[readme.index("COMPANION_INSTANCE_PATH=") :].split("```")[0]
    listed = set(re.findall(r"^(?:# )?COMPANION_([A-Z_]+)=", env_file, flags=re.M))
    assert ours == table == listed, (ours ^ table, ours ^ listed)
