"""Line charts drawn on the server as SVG (templates/_chart.html): no script, so they work
under the CSP and offline once loaded; colours come from the stylesheet (dark mode too).

:func:`running_scores` is a game's score deal by deal; :func:`wins_over_time` a player's
wins, game after game; :func:`line_chart` places either in the SVG's box.

>>> c = line_chart({"Ann": [0, 10, 30], "Ben": [0, 20, 25]}, ["", "1", "2"])
>>> [s["name"] for s in c["series"]], c["series"][0]["points"]
(['Ann', 'Ben'], '40,134 152,93 264,10')
>>> c = line_chart({"Ann": list(range(1001))}, [str(i) for i in range(1001)])
>>> len(c["rows"]), c["rows"][-1]
(60, {'label': '1000', 'values': [1000]})
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

#: The SVG's box, in its own units (it scales to the page's width), and its margins:
#: room for the y axis's numbers on the left and each line's name at its end on the right.
WIDTH, HEIGHT = 340, 160
LEFT, RIGHT, TOP, BOTTOM = 40, 76, 10, 26
#: The most values a line is drawn through (and the screen readers' table lists).
MAX_POINTS = 60
#: The least room between two names at the lines' ends, so they never overlap.
LABEL_GAP = 13
#: What a line's end label may take of the right margin at least and at most (the plot
#: keeps the rest), and how wide its characters draw there (11-unit bold type): a wide one
#: (健, さ) is a square, the others about 0.65 of it.
LABEL_ROOM, MOST_LABEL_ROOM, WIDE, NARROW = RIGHT - 8, 124, 11.0, 7.2


def label_width(text: str) -> float:
    """How wide ``text`` draws as a line's end label, in the SVG's units."""
    return sum(WIDE if unicodedata.east_asian_width(ch) in "WF" else NARROW for ch in text)


def end_label(last: int, name: str, room: float = LABEL_ROOM) -> str:
    """A line's end label, "165 Ann", cut with an ellipsis to what ``room`` holds:
    「256 健太郎 & 翔太郎」 ran off the chart's right edge.

    >>> end_label(12, "Ann"), end_label(88, "さくら"), end_label(165, "健太郎 & 翔太郎")
    ('12 Ann', '88 さくら', '165 健太…')
    """
    text = f"{last} {name}"
    if label_width(text) <= room:
        return text
    while text and label_width(text + "…") > room:
        text = text[:-1]
    return text.rstrip() + "…"


def label_room(series: dict[str, list[int]]) -> float:
    """The room the lines' end labels take: the widest whole label's, from ``LABEL_ROOM``
    up to ``MOST_LABEL_ROOM`` (the plot narrows for it): "1 Tablanette" and 「3 長谷川大輔」
    were cut to "1 Tablane…" and 「3 長谷川大…」 with room to spare on the phone.

    >>> label_room({"Ann": [0, 12]}), label_room({"Tablanette": [0, 1]}), label_room({"x" * 40: [1]})
    (68, 87, 124)
    """
    widest = max(label_width(f"{values[-1]} {name}") for name, values in series.items())
    return min(MOST_LABEL_ROOM, max(LABEL_ROOM, math.ceil(widest)))


def running_scores(rules, view: dict) -> dict[str, list[int]] | None:
    """Each side's score after each finished deal, from 0: points where the game keeps a
    score (Tablanette, Tantony), else marks (Tute's loss marks, 100's hands lost). None
    before the first deal ends."""
    if not view["history"]:
        return None
    key = "points" if isinstance(view.get("scores"), dict) else "marks"
    series: dict[str, list[int]] = {}
    for record in view["history"]:
        deal = rules.figures({**view, "history": [record], "result": None})
        for side, figures in deal.items():
            run = series.setdefault(side, [0])
            run.append(run[-1] + figures[key])
    return series


def wins_over_time(games: list[dict], titles: dict[str, str]) -> dict[str, list[int]] | None:
    """A player's wins in each game family, counted after each of their finished games
    (``stats.games_of``); None before one is finished."""
    finished = [g for g in games if g["won"] is not None]
    if not finished:
        return None
    series: dict[str, list[int]] = {titles[g["game"]]: [0] for g in finished}
    for g in finished:
        for title, run in series.items():
            run.append(run[-1] + (g["won"] if titles[g["game"]] == title else 0))
    return series


def _ticks(top: int) -> list[int]:
    """Three or four round whole values from 0 to at least ``top`` for the y axis."""
    if top <= 0:
        return [0, 1]
    rough = top / 3
    power = 10 ** math.floor(math.log10(rough))
    step = max(1, next(m * power for m in (1, 2, 5, 10) if m * power >= rough))
    return [step * i for i in range(math.ceil(top / step) + 1)]


def line_chart(series: dict[str, list[int]], xlabels: list[str]) -> dict:
    """Where each series' line, dots and name go in the SVG's box, the y axis's ticks, and
    the x axis's labels (a few, so they never crowd)."""
    n = max(len(v) for v in series.values())
    if n > MAX_POINTS:  # every k-th value and the last: the chart's shape, at a bounded size
        keep = sorted({*range(0, n, math.ceil(n / MAX_POINTS)), n - 1})
        series = {name: [v[i] for i in keep if i < len(v)] for name, v in series.items()}
        xlabels = [xlabels[i] for i in keep]
        n = len(keep)
    ticks = _ticks(max(max(v) for v in series.values()))
    room = label_room(series)
    right = room + (RIGHT - LABEL_ROOM)
    plot_w, plot_h = WIDTH - LEFT - right, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - v / ticks[-1])

    lines: list[dict[str, Any]] = []
    for name, values in series.items():
        dots = [(round(x(i)), round(y(v))) for i, v in enumerate(values)]
        lines.append(
            {
                "name": name,
                "last": values[-1],
                "label": end_label(values[-1], name, room),
                "dots": dots,
                "points": " ".join(f"{a},{b}" for a, b in dots),
            }
        )
    # Names at the lines' ends, top to bottom, pushed apart where they would overlap.
    for line in lines:
        line["label_y"] = line["dots"][-1][1] + 4
    ordered = sorted(lines, key=lambda s: s["label_y"])
    for above, below in zip(ordered, ordered[1:]):
        below["label_y"] = max(below["label_y"], above["label_y"] + LABEL_GAP)
    # ... and back up from the box's foot where that pushed the last ones out of it.
    if ordered:
        ordered[-1]["label_y"] = min(ordered[-1]["label_y"], HEIGHT - 4)
    for above, below in zip(ordered[-2::-1], ordered[::-1]):
        above["label_y"] = min(above["label_y"], below["label_y"] - LABEL_GAP)
    every = max(1, math.ceil((n - 1) / 6))
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - right,
        "bottom": HEIGHT - BOTTOM,
        "label_x": WIDTH - right + 6,
        "dotted": n <= 20,  # a dot at each value while they stay apart
        "series": lines,
        "ticks": [{"value": t, "y": round(y(t))} for t in ticks],
        "xlabels": [{"text": xlabels[i], "x": round(x(i))} for i in range(n) if i % every == 0 and xlabels[i]],
        "rows": [
            {"label": xlabels[i], "values": [s[i] if i < len(s) else None for s in series.values()]} for i in range(n)
        ],
    }
