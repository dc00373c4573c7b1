"""Page weight (DESIGN.md quality bar): the game page's own first load, htmx included, at
most 32 KB compressed; a repeat load nothing (the service worker's cache: tests/e2e/test_offline.py);
every later interaction a few hundred bytes. Measured through the app for each game, as a
phone's Chrome fetches it (it gets brotli) and as a browser that takes gzip only: the page's
HTML and every stylesheet and script it links (tests/weight.py). Then a few moves' answers
(brotli) as the page asks for them, naming the board's parts it shows (issue 45), beside the
same answers whole.

    .venv/bin/python bench/page_weight.py
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's companion and tests

from companion import create_app, games, web  # noqa: E402
from tests.weight import BAR, ENCODINGS, first_load  # noqa: E402

#: The digests of the board's parts a page shows (companion/board/parts.py).
DIGESTS = re.compile(r'data-part="([0-9a-f]{8})"')


def refereed(client, game: str, players: list[str]) -> str:
    """A new game of ``game``, which ``client`` referees: its id."""
    created = client.post("/api/games", json={"game": game, "players": players, "options": {}}).get_json()
    game_id = created["id"]
    link = client.post(
        f"/api/games/{game_id}/links", json={"kind": "add"}, headers={"X-Edit-Key": created["edit_key"]}
    ).get_json()["url"]
    client.post(f"/games/{game_id}/join", data={"token": link.rsplit("/", 1)[1]})
    return game_id


def main() -> None:
    app = create_app({"DATABASE": tempfile.mkdtemp() + "/w.db", "SECRET_KEY": "w", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    print(f"first load: the game page and what it links, bytes over the wire (bar {BAR / 1024:.0f} KB)")
    for game in games.GAMES:
        players, moves = web.get(game).SAMPLE["players"], web.get(game).SAMPLE["moves"]
        game_id, twin = refereed(client, game, players), refereed(client, game, players)
        for encoding in ENCODINGS:
            load = first_load(client, f"/games/{game_id}", encoding)
            parts = "  ".join(f"{url.rsplit('/', 1)[1]} {size / 1024:.1f}" for url, size in load.assets.items())
            over = " OVER" if load.total > BAR else ""
            print(
                f"{game:11s} {encoding:4s}  {load.total / 1024:5.1f} KB{over:5s}  page {load.page / 1024:.1f}  {parts}"
            )
        gz = {"Accept-Encoding": ENCODINGS["br"]}
        # Each answer as the page asks for it, naming the board's parts it shows (X-Board-Parts):
        # those come back as stubs. Beside it, the same moves answered whole (a twin game).
        sizes, whole = [], []
        for version, move in enumerate(moves):
            data = {"version": version, **{k + "[]" if isinstance(v, list) else k: v for k, v in move.items()}}
            shown = " ".join(DIGESTS.findall(client.get(f"/games/{game_id}").get_data(as_text=True)))
            for at, parts, kept in ((game_id, {"X-Board-Parts": shown}, sizes), (twin, {}, whole)):
                answer = client.post(f"/games/{at}/moves", data=data, headers={**gz, "HX-Request": "true", **parts})
                assert answer.status_code == 200, answer.data[:300]
                kept.append(len(answer.data))
        poll = client.get(f"/games/{game_id}/live?version={len(moves)}", headers={**gz, "HX-Request": "true"})
        print(
            f"{'':11s} br    moves {', '.join(f'{s} B' for s in sizes)} (whole: {', '.join(f'{s} B' for s in whole)})"
            f"   poll when unchanged {poll.status_code} {len(poll.data)} B"
        )


if __name__ == "__main__":
    main()
