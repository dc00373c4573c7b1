"""Fresh boots of the server, as ``make run`` starts it, many in a row (issue 30), for
tests/test_startup.py: ``python -m tests.boots COUNT FOLDER AT_ONCE`` prints one JSON line a
boot, AT_ONCE of them starting at any time.

Each boot is a process forked from this one, which has imported the app and gunicorn once:
it runs ``companion.serve.main`` with ``--host 127.0.0.1`` and a free port on an instance
folder of its own, fresh, and where ``serve`` would exec ``python -m gunicorn`` it runs
gunicorn's same entry point in place. So every boot goes through serve's command line,
gunicorn's master making the app (its secret key, its migrations) and forking the two
workers; only the interpreter's start and the imports are not paid again (they cost about a
second of CPU a boot, which fifty boots in `make test` can't afford; tests/test_serve.py
starts the real ``make run`` too).

A boot counts once both workers have logged "Worker ready" and /healthz answers 200 on
127.0.0.1; then it is stopped (SIGTERM, gunicorn's graceful stop) while others boot, and
must exit with 0. Nothing is sent anywhere but 127.0.0.1.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sys
import tempfile
import time
import traceback

import gunicorn.app.wsgiapp

import companion  # noqa: F401 - imported once, here: every boot is forked with it
from companion import serve

#: Seconds a boot may take before it counts as failed.
DEADLINE = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server(folder: str, port: int, log: str) -> None:
    """The forked child: ``serve.main`` as ``make run`` calls it, gunicorn run in place of
    the exec. Never returns."""
    code = 1
    try:
        os.setsid()  # its own process group: stopped with its workers
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.environ["COMPANION_INSTANCE_PATH"] = folder

        def run_gunicorn(path: str, command: list[str]) -> None:
            assert command[1:3] == ["-m", "gunicorn"], command
            sys.argv = ["gunicorn", *command[3:]]
            gunicorn.app.wsgiapp.run(prog="gunicorn")

        os.execv = run_gunicorn  # type: ignore[assignment]
        serve.main(["--host", "127.0.0.1", "--port", str(port)])
    except SystemExit as e:  # gunicorn's master (or a worker) ending
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # as the interpreter would: said in the log
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def read(path: str) -> str:
    return open(path).read() if os.path.exists(path) else ""


def healthy(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


class Boot:
    """One server starting on a fresh instance folder of its own, and a free port."""

    def __init__(self, root: str):
        self.folder = tempfile.mkdtemp(dir=root)
        self.port, self.log = free_port(), os.path.join(self.folder, "server.log")
        self.started = time.monotonic()
        self.pid = os.fork()
        if self.pid == 0:
            server(self.folder, self.port, self.log)
        self.result: dict = {"folder": self.folder, "ready": False}

    def settled(self) -> bool:
        """Whether it serves (then it is told to stop), ended by itself, or ran out of time."""
        done, status = os.waitpid(self.pid, os.WNOHANG)
        if done:  # the master ended by itself: it did not boot
            self.result["exit"] = os.waitstatus_to_exitcode(status)
        elif read(self.log).count("Worker ready") >= serve.WORKERS and healthy(self.port):
            self.result["ready"] = True
        elif time.monotonic() - self.started < DEADLINE:
            return False
        self.result["seconds"] = round(time.monotonic() - self.started, 3)
        if "exit" not in self.result:
            os.killpg(self.pid, signal.SIGTERM)  # gunicorn's graceful stop, while others boot
        return True

    def stopped(self) -> dict:
        """Wait for its end; what became of it."""
        deadline = time.monotonic() + DEADLINE
        while "exit" not in self.result:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.result["exit"] = os.waitstatus_to_exitcode(status)
            elif time.monotonic() > deadline:
                os.killpg(self.pid, signal.SIGKILL)
                self.result["exit"] = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            else:
                time.sleep(0.05)
        self.result["log"] = read(self.log)
        return self.result


def main(count: int, root: str, at_once: int) -> None:
    """``count`` boots, ``at_once`` of them starting at any time (each has its own port and
    instance folder: a boot races only between its own workers); none is started after one
    failed."""
    booting: list[Boot] = []
    settled: list[Boot] = []
    try:
        while len(settled) < count:
            failed = not all(b.result["ready"] for b in settled)
            if failed and not booting:
                break
            while not failed and len(booting) < at_once and len(settled) + len(booting) < count:
                booting.append(Boot(root))
            for b in [b for b in booting if b.settled()]:
                booting.remove(b)
                settled.append(b)
            time.sleep(0.02)
    finally:
        for b in settled + booting:
            if b in booting:
                os.killpg(b.pid, signal.SIGTERM)
            print(json.dumps(b.stopped()), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
