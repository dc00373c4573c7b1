"""Server-Timing: how long the app took to answer a request, and the parts of it worth telling
apart. Every answer says ``app`` (from the request's start to its answer); a move also says
``store`` (the store's change: its transaction, the engine, the view) and, on the game page,
``render`` (the answer's HTML). Browsers' developer tools show them beside the network's time;
bench/server.py reads them to say where a move's time goes (issue 34).

>>> parse("app;dur=2.50, store;dur=0.50, render;dur=1.25")
{'app': 0.0025, 'store': 0.0005, 'render': 0.00125}
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask, g


def init_app(app: Flask) -> None:
    """Time every request from its first hook to its last (call it before any extension's
    ``init_app``: Flask runs the hooks made first first before a request and last after it,
    so the CSRF check, the rate limit and the security headers are counted in ``app``)."""

    @app.before_request
    def started() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def said(response):
        if "started" in g:
            response.headers["Server-Timing"] = header(g.started)
        return response


@contextmanager
def part(name: str) -> Iterator[None]:
    """Time the block as ``name`` in this request's Server-Timing (added up if it runs twice)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        parts = g.setdefault("timed_parts", {})
        parts[name] = parts.get(name, 0.0) + time.perf_counter() - start


def header(started: float) -> str:
    """The header's value: ``app`` since ``started`` (a ``time.perf_counter()``), then each
    part this request timed, in milliseconds."""
    metrics = {"app": time.perf_counter() - started, **g.get("timed_parts", {})}
    return ", ".join(f"{name};dur={seconds * 1000:.2f}" for name, seconds in metrics.items())


def parse(value: str) -> dict[str, float]:
    """A Server-Timing header's durations by name, in seconds (a metric without one is left out)."""
    metrics = {}
    for metric in value.split(","):
        name, _, params = metric.strip().partition(";")
        for param in params.split(";"):
            key, _, number = param.strip().partition("=")
            if key == "dur":
                metrics[name] = float(number) / 1000
    return metrics
