"""``make run`` serves the table (issue 11): every interface by default, gunicorn, and
first the address the phones should open with its QR code.

Traffic goes to 127.0.0.1 only: the binding is proven from the listening socket, and the
printed address is used as a Host header, never connected to."""

import gc
import http.client
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from companion import serve

ROOT = Path(__file__).resolve().parents[1]
Addr = namedtuple("Addr", "family address")
Stats = namedtuple("Stats", "isup")


def fake_interfaces(monkeypatch, interfaces: dict[str, list[str]], down=()):
    monkeypatch.setattr(
        psutil, "net_if_addrs", lambda: {n: [Addr(socket.AF_INET, ip) for ip in ips] for n, ips in interfaces.items()}
    )
    monkeypatch.setattr(psutil, "net_if_stats", lambda: {n: Stats(n not in down) for n in interfaces})


def test_the_rooms_address_comes_first(monkeypatch):
    fake_interfaces(
        monkeypatch,
        {
            "lo": ["127.0.0.1"],
            "docker0": ["172.17.0.1"],
            "wlan0": ["192.168.1.20"],
            "eth0": ["10.0.0.7"],
            "usb0": ["169.254.3.4"],
            "eth1": ["192.168.9.9"],
        },
        down={"eth1"},
    )
    assert serve.lan_addresses() == ["192.168.1.20", "10.0.0.7", "172.17.0.1"]
    url, lines = serve.banner("0.0.0.0", 5000)
    assert url == "http://192.168.1.20:5000"
    assert lines[0].startswith("Open http://192.168.1.20:5000 on the phones")
    assert "http://10.0.0.7:5000" in lines[1]


def test_no_network_says_so(monkeypatch):
    fake_interfaces(monkeypatch, {"lo": ["127.0.0.1"]})
    url, lines = serve.banner("0.0.0.0", 5000)
    assert url is None and "No network" in lines[0]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_private_server_says_so(host):
    url, lines = serve.banner(host, 8000)
    assert url is None and lines[0].startswith(f"Private: http://{host}:8000")


def test_gunicorn_is_the_server():
    command = serve.gunicorn_command("0.0.0.0", 5000)
    assert command[1:3] == ["-m", "gunicorn"] and "0.0.0.0:5000" in command and "gthread" in command


def test_the_master_forks_each_worker_with_the_apps_objects_out_of_the_collectors_sight():
    """gunicorn reads companion.serve as its settings (``--config python:companion.serve``):
    its pre_fork hook (gunicorn checks the hook's signature) freezes what the master made."""
    from gunicorn.config import Config

    assert "python:companion.serve" in serve.gunicorn_command("127.0.0.1", 5000)
    settings = Config()
    settings.set("pre_fork", serve.pre_fork)
    before = gc.get_freeze_count()
    try:
        settings.pre_fork(None, None)
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> set[str]:
    return {
        c.laddr.ip for c in psutil.net_connections("tcp") if c.status == psutil.CONN_LISTEN and c.laddr.port == port
    }


def get(port: int, path: str, host: str, method="GET", body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers={"Host": host, **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


@pytest.fixture
def make_run(tmp_path):
    """Start ``make run`` with its instance in a temporary folder; stop it afterwards."""
    started = []

    def start(*args: str):
        port = free_port()
        env = {**os.environ, "COMPANION_INSTANCE_PATH": str(tmp_path), "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            ["make", "-s", "run", f"PORT={port}", *args],
            cwd=ROOT,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        started.append(proc)
        first = proc.stdout.readline()
        deadline = time.monotonic() + 30
        while not listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, "make run did not start"
            time.sleep(0.1)
        return proc, port, first

    yield start
    for proc in started:
        os.killpg(proc.pid, signal.SIGTERM)
        # Within gunicorn's graceful timeout (30 s): a worker still booting when the signal
        # comes (a test that stops the server as soon as it listens, on a loaded machine)
        # has not yet taken over its signals, and the master waits that long before it kills it.
        proc.wait(timeout=45)
        proc.stdout.close()


def test_make_run_serves_every_interface_and_prints_the_address_first(make_run, tmp_path):
    proc, port, first = make_run()
    assert listening(port) == {"0.0.0.0"}
    url, _ = serve.banner("0.0.0.0", port)
    if url is None:
        assert first.startswith("No network")
        pytest.skip("this machine has no network address besides loopback")
    assert first.startswith(f"Open {url} ")  # the very first line
    qr = [proc.stdout.readline() for _ in range(3)]
    assert all(set(line.strip()) <= set("█▀▄ ") and line.strip() for line in qr), qr  # a QR code, drawn
    host = url.split("//", 1)[1]
    status, body = get(port, "/healthz", host)
    assert (status, body) == (200, "ok")
    # Links are built from the address the phone used (here: the printed one, as a Host header).
    status, body = get(
        port,
        "/api/games",
        host,
        "POST",
        json.dumps({"game": "tablanette", "players": ["A", "B"]}),
        {"Content-Type": "application/json"},
    )
    created = json.loads(body)
    status, body = get(
        port,
        f"/api/games/{created['id']}/links",
        host,
        "POST",
        json.dumps({"kind": "add"}),
        {"Content-Type": "application/json", "X-Edit-Key": created["edit_key"]},
    )
    assert status == 201 and json.loads(body)["url"].startswith(f"{url}/games/{created['id']}/join/")
    assert (tmp_path / "companion.db").exists()  # the instance folder given, not the checkout


def test_make_run_host_keeps_it_private(make_run):
    proc, port, first = make_run("HOST=127.0.0.1")
    assert listening(port) == {"127.0.0.1"}
    assert first.startswith(f"Private: http://127.0.0.1:{port}")


def test_twenty_phones_sending_the_same_move_at_once_record_it_once(make_run):
    """Issue 14: through the real server (2 gunicorn workers x 8 threads), 20 identical
    moves sent at the same instant, five times over: each time exactly one 200 and
    nineteen 409 (the version is the lock), and the game holds exactly those five moves."""
    proc, port, first = make_run("HOST=127.0.0.1")
    host, json_headers = f"127.0.0.1:{port}", {"Content-Type": "application/json"}
    status, body = get(
        port, "/api/games", host, "POST", json.dumps({"game": "hundred", "players": ["A", "B"]}), json_headers
    )
    created = json.loads(body)
    headers = {**json_headers, "X-Edit-Key": created["edit_key"]}
    for version, card in enumerate(["2S", "3S", "4S", "5S", "6S"]):
        body = json.dumps({"version": version, "move": {"type": "play", "card": card}})
        start = threading.Barrier(20)

        def send():
            start.wait(timeout=30)
            return get(port, f"/api/games/{created['id']}/moves", host, "POST", body, headers)[0]

        with ThreadPoolExecutor(20) as pool:
            statuses = sorted(pool.map(lambda _: send(), range(20)))
        assert statuses == [200] + [409] * 19, statuses
    status, body = get(port, f"/api/games/{created['id']}/transcript", host)
    assert [m["card"] for m in json.loads(body)["moves"]] == ["2S", "3S", "4S", "5S", "6S"]


def test_the_creation_budget_is_counted_once_across_the_workers(make_run):
    """Issue 30: through the real server (gunicorn, 2 workers, as make run starts it), 40 new
    games in a row from one address against CREATE_LIMIT's 30 a minute: the first 30 are
    created and every one after is refused with 429 and Retry-After, whichever worker
    answers (the counts are in the instance's limits.sqlite, which both share; with memory://
    each counted its own, and 60 of 80 got through)."""
    proc, port, first = make_run("HOST=127.0.0.1")
    host, body = f"127.0.0.1:{port}", json.dumps({"game": "hundred", "players": ["A", "B"]})
    statuses = [get(port, "/api/games", host, "POST", body, {"Content-Type": "application/json"})[0] for _ in range(40)]
    assert statuses == [201] * 30 + [429] * 10, statuses
