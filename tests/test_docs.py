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


#: What the rules pages say of another program, as that program is today (issue 44, item 9),
#: in the words each language's rules page and RULES.md say it: ichabod801/t_games'
#: ninety_nine_game.py has no option "face=" (only its docstring names one); PlayAural's 99
#: takes 3 tokens from a player out of cards (PENALTY_NO_CARDS); Rutmaniyar's Tantony-Game
#: scored 3 players apart in its code of 2023 and plays only 4 in teams since 2025-05-14.
OTHER_PROGRAMS = {
    "/rules/hundred/words?lang=en": ["3 for running out of cards"],
    "/rules/hundred/words?lang=ja": ["手札が尽きたら3枚"],
    "/rules/tantony/words?lang=en": ["in its code of 2023", "since 2025-05-14 it plays four"],
    "/rules/tantony/words?lang=ja": ["2023年のコードでは3人を個人集計としていた", "2025年5月14日からは4人の2チーム戦"],
}


@pytest.mark.parametrize("url", OTHER_PROGRAMS)
def test_the_rules_pages_say_what_other_programs_do_today(client, url):
    page = client.get(url).get_data(as_text=True)
    assert [said for said in OTHER_PROGRAMS[url] if said not in page] == []
    assert "face=" not in page and "数字どおりのランク" not in page


def test_rules_md_says_what_other_programs_do_today():
    text = (DOCS / "RULES.md").read_text(encoding="utf-8")
    assert "face=" not in text
    assert "3 for running out of cards (`PENALTY_NO_CARDS`)" in text
    assert "since its rewrite of 2025-05-14" in text and "only 4 players in two teams" in text
