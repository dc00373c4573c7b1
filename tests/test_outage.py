"""PostgreSQL out of reach for a while (issue 44): a request is answered 503 at once (it
used to wait the pool's 5 s), the live hub says so in one line for the whole outage
(it logged a traceback every 50 ms), and within a second of the database's return
requests are served and the streams hear the moves again (the pool's reconnection,
backing off, kept a worker waiting up to 3.7 s).

A server of its own on 127.0.0.1 (conftest.py's ``postgres_cluster``), stopped and started
under a running app; every wait is bounded."""

from __future__ import annotations

import logging
import time

import pytest

from companion.live import Hub
from tests.conftest import make_app, postgres_cluster

pytestmark = pytest.mark.postgres


def test_an_outage_is_a_503_at_once_one_line_and_over_within_a_second(tmp_path, caplog):
    with postgres_cluster() as cluster:
        app = make_app(tmp_path, DATABASE_URL=cluster.url)  # the pool's timeout as configured: 5 s
        client = app.test_client()
        store = app.extensions["store"]
        created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
        game, key = f"/api/games/{created['id']}", {"X-Edit-Key": created["edit_key"]}
        hub = Hub(store, limit=2)
        watch = hub.open(created["id"], 0)
        assert watch is not None
        try:
            with caplog.at_level(logging.WARNING, logger="companion.live"):
                cluster.stop()
                try:
                    for _ in range(4):  # each request during the outage: a 503 at once
                        started = time.monotonic()
                        answer = client.get(game)
                        assert answer.status_code == 503, answer.get_data(as_text=True)
                        assert time.monotonic() - started < 1, "a 503 during an outage waited"
                        time.sleep(0.3)
                    time.sleep(1)  # the hub tries again meanwhile, backing off
                finally:
                    cluster.start()
                back = time.monotonic()
                while (answer := client.get(game)).status_code == 503:
                    assert time.monotonic() - back < 1, "not served within a second of the database's return"
                    time.sleep(0.05)
                assert answer.get_json()["version"] == 0
            said = [r for r in caplog.records if r.name == "companion.live"]
            assert len(said) == 1 and said[0].exc_info is None, [r.getMessage() for r in said]
            move = {"version": 0, "move": {"type": "play", "card": "5C"}}
            assert client.post(f"{game}/moves", json=move, headers=key).status_code == 200
            assert hub.wait(watch, 0, timeout=3) == 1  # the stream hears the move again
        finally:
            hub.close(watch)
            store.close()
