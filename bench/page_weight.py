"""Page weight (DESIGN.md quality bar): the game page's first load, htmx included, under
24 KB compressed (docs/DESIGN.md); every later interaction a few hundred bytes. Measured through the app
with gzip, as a phone would fetch it, for each game."""

from __future__ import annotations

import tempfile

from companion import create_app, games, web


def main() -> None:
    app = create_app({"DATABASE": tempfile.mkdtemp() + "/w.db", "SECRET_KEY": "w", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    gz = {"Accept-Encoding": "gzip"}
    assets = ("/static/htmx.min.js", "/static/sse.min.js", "/static/app.css", "/static/app.js")
    static = sum(len(client.get(path, headers=gz).data) for path in assets)
    print(f"htmx + its sse extension + app.css + app.js, gzip: {static / 1024:.1f} KB")
    for game in games.GAMES:
        players, moves = web.get(game).SAMPLE["players"], web.get(game).SAMPLE["moves"]
        created = client.post("/api/games", json={"game": game, "players": players, "options": {}}).get_json()
        game_id = created["id"]
        link = client.post(
            f"/api/games/{game_id}/links", json={"kind": "add"}, headers={"X-Edit-Key": created["edit_key"]}
        ).get_json()["url"]
        client.post(f"/games/{game_id}/join", data={"token": link.rsplit("/", 1)[1]})  # this client referees
        page = client.get(f"/games/{game_id}", headers=gz).data
        sizes = []
        for version, move in enumerate(moves):
            answer = client.post(
                f"/games/{game_id}/moves",
                data={"version": version, **{k + "[]" if isinstance(v, list) else k: v for k, v in move.items()}},
                headers={**gz, "HX-Request": "true"},
            )
            assert answer.status_code == 200, answer.data[:300]
            sizes.append(len(answer.data))
        poll = client.get(f"/games/{game_id}/live?version={len(moves)}", headers={**gz, "HX-Request": "true"})
        first = len(page) + static
        over = " OVER" if first > 24 * 1024 else ""
        print(
            f"{game:11s} first load {first / 1024:5.1f} KB (bar 24{over})"
            f"   moves {', '.join(f'{s} B' for s in sizes)}"
            f"   poll when unchanged {poll.status_code} {len(poll.data)} B"
        )


if __name__ == "__main__":
    main()
