"""``make run``: serve the app to the phones at the table.

Prints, as its first lines, the address the phones should open (this machine's address
on the room's network) and a QR code of it drawn in the terminal, then hands over to
gunicorn: several workers with threads, so phones polling at once are served together
(Flask's debug server is for development only).

gunicorn makes the app once, in its master process (``--preload``), before it forks the
workers: the instance's secret key and the database's migrations are done there, once, so
two workers starting together never race to create them (issue 30: a fresh instance could
fail to boot with "database is locked"). Each worker logs "Worker ready" once it serves.

    python -m companion.serve [--host 0.0.0.0] [--port 5000]

The LAN address is read from the network interfaces (psutil); nothing is sent anywhere
to find it.
"""

from __future__ import annotations

import argparse
import gc
import ipaddress
import os
import socket
import sys

import psutil
import segno

#: Interfaces that are not the room's network: containers, bridges, tunnels.
_VIRTUAL = ("lo", "docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "tun", "tap", "wg", "zt", "utun")

WORKERS = 2
THREADS = 8


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that other devices can reach, best first:
    private (192.168/16, 10/8, 172.16/12) on a physical interface, then the rest."""
    stats = psutil.net_if_stats()
    found = []
    for name, addrs in psutil.net_if_addrs().items():
        if name in stats and not stats[name].isup:
            continue
        for a in addrs:
            if a.family != socket.AF_INET:
                continue
            ip = ipaddress.IPv4Address(a.address)
            if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast:
                continue
            virtual = name.startswith(_VIRTUAL)
            rank = (virtual, not ip.is_private, 0 if str(ip).startswith("192.168.") else 1)
            found.append((rank, str(ip)))
    return [ip for _, ip in sorted(found)]


def banner(host: str, port: int) -> tuple[str | None, list[str]]:
    """``(url, lines)``: the address phones should open (None when they can't) and the
    lines ``make run`` prints first about it."""
    if host in ("0.0.0.0", "", "::"):
        addresses = lan_addresses()
        if not addresses:
            return None, [
                f"No network found: open http://127.0.0.1:{port} on this machine.",
                "Join the room's Wi-Fi and start again to serve the phones.",
            ]
        url = f"http://{addresses[0]}:{port}"
        lines = [f"Open {url} on the phones at the table (same Wi-Fi), or scan:"]
        if addresses[1:]:
            lines.append("Other addresses of this machine: " + ", ".join(f"http://{ip}:{port}" for ip in addresses[1:]))
        return url, lines
    if host == "localhost" or host == "::1" or host.startswith("127."):
        return None, [
            f"Private: http://{host}:{port} on this machine only (`make run` without HOST= serves the phones)."
        ]
    url = f"http://{host}:{port}"
    return url, [f"Open {url} on the phones at the table, or scan:"]


def admin_lines(url: str, instance: str | None = None) -> list[str]:
    """What ``make run`` says of the admin page: on the server's first start, its key, made
    now and printed this once (companion/admin.py); later, only where the page is."""
    from flask import Flask

    from companion import admin

    instance = instance or os.environ.get("COMPANION_INSTANCE_PATH") or Flask("companion").instance_path
    key = admin.first_key(instance)
    if key is None:
        return [f"Admin page (backup, restore): {url}/admin (`flask admin-key` makes a new key)"]
    return [
        f"Admin page (backup, restore): {url}/admin, with the server's key: {key}",
        "The key is shown this once: keep it with the club's organiser (`flask admin-key` makes a new one).",
    ]


def gunicorn_command(host: str, port: int, log_level: str = "info") -> list[str]:
    """gunicorn with threads: a phone's poll waits on no other phone's request."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        bind,
        "--workers",
        str(WORKERS),
        "--threads",
        str(THREADS),
        "--worker-class",
        "gthread",
        "--log-level",
        log_level,
        # The app is made in the master, before the workers are forked (see the module's doc).
        "--preload",
        # No gunicornc control socket: one per user ($HOME/.gunicorn/gunicorn.ctl), which two
        # servers on one machine would share, and nothing here uses it.
        "--no-control-socket",
        # This module's gunicorn settings: pre_fork and post_worker_init below (no other name
        # here is one).
        "--config",
        "python:companion.serve",
        "companion:create_app()",
    ]


def pre_fork(server, worker) -> None:
    """gunicorn's hook, in the master just before it forks a worker: everything made so far
    (the modules, the app and its routes: some 80,000 objects that live as long as the
    process) is moved out of the garbage collector's sight (``gc.freeze``, as Python's
    documentation advises before a fork). A worker's collections then skip them: measured
    in process over 1,000 moves, the collector's time fell from 250 to 64 ms, a move's p99
    from 56 to 16 ms. They stay shared with the master's memory, too. Garbage is collected
    first, so none of it is kept for good."""
    gc.collect()
    gc.freeze()


def post_worker_init(worker) -> None:
    """gunicorn's hook: a worker is up and serves from now on (its log line says so, where
    gunicorn's own "Booting worker" comes before the worker is ready)."""
    worker.log.info("Worker ready (pid: %s)", worker.pid)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--host",
        default=os.environ.get("HOST", "0.0.0.0"),
        help="0.0.0.0 (every interface: the phones) or 127.0.0.1 (this machine only)",
    )
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "5000")))
    args = parser.parse_args(argv)
    url, lines = banner(args.host, args.port)
    print("\n".join(lines))
    if url:
        segno.make_qr(url, error="m").terminal(compact=True, border=2)
    print("\n".join(admin_lines(url or f"http://127.0.0.1:{args.port}")))
    print(flush=True)
    command = gunicorn_command(args.host, args.port)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
