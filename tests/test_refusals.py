"""Every refusal is data (issue 13): a stable code, an English text with a place for
each param, and the rule it cites; nothing builds a refusal's words by hand.

The check reads the source: every ``raise``-able refusal (``MoveError`` and its kinds,
``OptionError``, ``Reason``) is made from a literal code and a literal text, or passes a
``Reason`` on. The text's ``%(name)s`` places all have their params; one code has
one text in a module; and every cited rule is a section of its game's rules page."""

from __future__ import annotations

import ast
import re

import pytest

from companion import board, games, store, web  # noqa: F401 (store: its refusal kinds)
from companion.errors import Refusal
from tests import ROOT


def _kinds(kind: type) -> set[str]:
    return {kind.__name__}.union(*(_kinds(k) for k in kind.__subclasses__()))


#: What makes a refusal: a Reason, or any kind of Refusal (the store's NothingToUndo too).
MAKERS = _kinds(Refusal) | {"Reason"}
NOT_PARAMS = {"rule", "options"}
PLACE = re.compile(r"%\((\w+)\)[sdr]")
#: Where refusals are made (errors.py defines them).
MODULES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "companion").rglob("*.py") if p.name != "errors.py")


def _name(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _strings(node: ast.expr | None) -> list[str] | None:
    """The literal strings ``node`` can be (a constant, one marked ``N_("...")`` for
    extraction, or a choice of them: an English text chosen by a count, "loses"/"lose")."""
    if isinstance(node, ast.Call) and _name(node.func) == "N_" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        a, b = _strings(node.body), _strings(node.orelse)
        return None if a is None or b is None else a + b
    return None


def _tables(tree: ast.Module) -> dict[str, list[tuple[ast.expr, ast.expr]]]:
    """The module's catalogues: ``NAME = {key: ("code", "text"), ...}``, as (code, text) nodes."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and isinstance(node.targets[0], ast.Name):
            rows = node.value.values
            if rows and all(isinstance(v, ast.Tuple) and len(v.elts) == 2 for v in rows):
                out[node.targets[0].id] = [(v.elts[0], v.elts[1]) for v in rows if isinstance(v, ast.Tuple)]
    return out


def _table_rows(node: ast.expr, tables: dict) -> list[tuple[ast.expr, ast.expr]] | None:
    """The (code, text) rows ``Reason(*TABLE[key], ...)`` may take (``TABLE`` a catalogue,
    or a choice of two)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.IfExp):
        a, b = _table_rows(node.body, tables), _table_rows(node.orelse, tables)
        return None if a is None or b is None else a + b
    return tables.get(node.id) if isinstance(node, ast.Name) else None


def refusals(path: str) -> list[dict]:
    """Every refusal made in ``path``: its code, text, rules, params, line. A refusal made
    from a catalogue (``Reason(*TABLE[key], ...)``) counts once per row of the catalogue."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    tables = _tables(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _name(node.func) in MAKERS):
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        made = {
            "line": node.lineno,
            "rules": _strings(keywords["rule"]) if "rule" in keywords else [],
            "params": None if None in keywords else set(keywords) - NOT_PARAMS,
        }
        starred = len(node.args) == 1 and isinstance(node.args[0], ast.Starred)
        rows = _table_rows(node.args[0].value, tables) if starred else None  # type: ignore[attr-defined]
        for args in [list(row) for row in rows] if rows else [node.args]:
            code = _strings(args[0]) if args else None
            text = _strings(args[1]) if len(args) > 1 else None
            found.append(made | {"args": args, "code": code, "text": text})
    return found


@pytest.mark.parametrize("path", MODULES)
def test_every_refusal_is_a_code_a_text_and_its_params(path):
    texts: dict[str, list[str]] = {}
    for r in refusals(path):
        where = f"{path}:{r['line']}"
        if len(r["args"]) == 1 and isinstance(r["args"][0], (ast.Name, ast.Attribute, ast.Call)):  # a Reason passed on
            assert not r["params"] and not r["rules"], where
            continue
        assert r["code"] and len(r["code"]) == 1, f"{where}: the code is a literal string"
        assert r["text"], f"{where}: the text is a literal string, not an f-string"
        code = r["code"][0]
        assert re.fullmatch(r"[a-z][a-z0-9_]*", code), f"{where}: {code!r}"
        # one text a code, or at one place a choice of English texts by a count ("loses"/"lose")
        assert texts.setdefault(code, r["text"]) == r["text"], f"{where}: {code!r} has two texts"
        assert r["rules"] is not None, f"{where}: the rule is a literal"
        for text in r["text"]:
            if r["params"] is not None:
                # every place has its param (a param need not be placed: it is data for the API and the web)
                places = set(PLACE.findall(text)) - {"rule"}
                assert places <= r["params"], f"{where}: {sorted(places - r['params'])} placed but not given"
            assert ("%(rule)s" in text) == bool(r["rules"]), f"{where}: the text places the rule it cites"


def cited_rules() -> set[str]:
    return {rule for path in MODULES for r in refusals(path) for rule in r["rules"] or []}


def test_refusals_cite_rules():
    assert len(cited_rules()) >= 10


@pytest.mark.parametrize("rule", sorted(cited_rules()))
def test_every_cited_rule_is_a_section_of_its_rules_page(app, rule):
    from companion.board.markup import rule_url

    with app.test_request_context():
        page, anchor = rule_url(rule).split("#")
    answer = app.test_client().get(page)
    assert answer.status_code == 200
    assert f'id="{anchor}"' in answer.get_data(as_text=True), rule


def test_every_game_cites_its_rules_by_its_adapter():
    assert {board.get(g).CITED for g in games.GAMES} >= {rule.rsplit(" ", 1)[0] for rule in cited_rules()}
