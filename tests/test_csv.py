"""The CSV tables a spreadsheet opens (``/export/<table>.csv``, ``flask export``) never
carry a formula: a cell starting with = + - @, a tab or a carriage return is written with
a single quote before it (OWASP, "CSV Injection"), so a player named ``=HYPERLINK(...)``
shows as that text and runs nothing."""

from __future__ import annotations

import csv
import io
import json

from companion import web

#: Names a spreadsheet would run as formulas, each a name the new-game form takes.
FORMULAS = ['=HYPERLINK("//e.vil")', "=cmd|' /C calc'!A0", "+1+1", "@SUM(1+1)", "-2+3"]


def cells(client, table: str) -> list[list[str]]:
    answer = client.get(f"/export/{table}.csv")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(answer.get_data(as_text=True))))


def test_no_csv_cell_starts_a_formula(app, client, tmp_path):
    sample = web.get("tablanette").SAMPLE["finished"]
    created = client.post(
        "/api/games", json={"game": "tablanette", "players": FORMULAS[:2], "options": sample["options"]}
    ).get_json()
    named = {json.dumps(old): json.dumps(new) for old, new in zip(("Ann", "Ben"), FORMULAS)}
    for version, move in enumerate(sample["moves"]):  # a finished deal: its sides are in deals.csv
        text = json.dumps(move)
        for old, new in named.items():
            text = text.replace(old, new)
        answer = client.post(
            f"/api/games/{created['id']}/moves",
            json={"version": version, "move": json.loads(text)},
            headers={"X-Edit-Key": created["edit_key"]},
        )
        assert answer.status_code == 200, answer.get_json()
    assert client.post("/api/games", json={"game": "hundred", "players": FORMULAS[2:]}).status_code == 201
    tables = {table: cells(client, table) for table in ("players", "games", "deals")}
    written = [cell for rows in tables.values() for row in rows for cell in row]
    assert not [cell for cell in written if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
    names = {row[1] for row in tables["players"][1:]}
    assert names == {f"'{name}" for name in FORMULAS}
    assert {row[3] for row in tables["deals"][1:]} == {f"'{name}" for name in FORMULAS[:2]}
    out = tmp_path / "csv"
    assert app.test_cli_runner().invoke(args=["export", str(out)]).exit_code == 0
    for table, rows in tables.items():  # flask export writes the same
        assert list(csv.reader(io.StringIO((out / f"{table}.csv").read_text(encoding="utf-8")))) == rows
