"""COMPANION_SYNCHRONOUS (issue 14, "Backups and power loss"): SQLite's synchronous
setting on every connection of the store, NORMAL by default or FULL for those who fear
a power cut more than a millisecond a move; anything else stops the app at start-up."""

from __future__ import annotations

import pytest

from companion import create_app
from companion.store import SqliteStore

LAYOUT = {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}
LEVELS = {"NORMAL": 1, "FULL": 2}  # what PRAGMA synchronous answers


def make_app(tmp_path, **config):
    return create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "s.db"), "SECRET_KEY": "t", **config}, instance_path=str(tmp_path)
    )


def pragma(store: SqliteStore) -> int:
    return store._conn().execute("PRAGMA synchronous").fetchone()[0]


@pytest.mark.parametrize("setting", ["NORMAL", "FULL"])
def test_the_store_sets_it_on_its_connections(tmp_path, setting):
    store = SqliteStore(tmp_path / "s.db", synchronous=setting)
    assert pragma(store) == LEVELS[setting]
    row, key = store.create("tablanette", ["Ann", "Ben"])
    assert store.play(row["id"], 0, LAYOUT, key=key)[0] == 1
    store.close()  # a new connection gets it too
    assert pragma(store) == LEVELS[setting]


def test_normal_is_the_default(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_SYNCHRONOUS", raising=False)
    app = make_app(tmp_path)
    assert app.config["SYNCHRONOUS"] == "NORMAL" and pragma(app.extensions["store"]) == 1


@pytest.mark.parametrize(
    "value,setting", [("FULL", "FULL"), ("full", "FULL"), ("NORMAL", "NORMAL"), (" Normal ", "NORMAL")]
)
def test_read_from_the_environment(tmp_path, monkeypatch, value, setting):
    monkeypatch.setenv("COMPANION_SYNCHRONOUS", value)
    app = make_app(tmp_path)
    assert app.config["SYNCHRONOUS"] == setting and pragma(app.extensions["store"]) == LEVELS[setting]


@pytest.mark.parametrize("value", ["OFF", "EXTRA", "2", "", "FULL; DROP TABLE games"])
def test_anything_else_fails_at_start_up(tmp_path, monkeypatch, value):
    monkeypatch.setenv("COMPANION_SYNCHRONOUS", value)
    with pytest.raises(ValueError, match="COMPANION_SYNCHRONOUS must be NORMAL .* or FULL"):
        make_app(tmp_path)
    assert not (tmp_path / "s.db").exists()  # stopped before the database was opened


@pytest.mark.parametrize("value", ["OFF", "full", 2])
def test_the_store_refuses_anything_else(tmp_path, value):
    with pytest.raises(ValueError, match="synchronous must be one of NORMAL, FULL"):
        SqliteStore(tmp_path / "s.db", synchronous=value)
