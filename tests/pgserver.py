"""A throwaway PostgreSQL server for the tests (conftest.py) and `make bench`: Debian's
postgresql package's programs, a cluster in a temporary folder, on 127.0.0.1 and a free
port, trusting local connections. ``initdb`` refuses to run as root, so as root the
server runs as the ``postgres`` user (the package creates it)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def postgres_bindir() -> str | None:
    """The folder of PostgreSQL's server programs (Debian: /usr/lib/postgresql/<version>/bin),
    or None when PostgreSQL is not installed."""
    wanted = os.environ.get("COMPANION_PG_BINDIR")
    found = shutil.which("initdb")
    candidates = [wanted] if wanted else [*sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    if found and not wanted:
        candidates.append(os.path.dirname(found))
    for folder in candidates:
        if all(os.access(os.path.join(folder, p), os.X_OK) for p in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresCluster:
    """A throwaway PostgreSQL server on 127.0.0.1 and a free port, in a temporary folder,
    trusting local connections (``url``). As root (``initdb`` refuses root) it runs as the
    ``postgres`` user. Not ``durable``: no fsync (tests; the data is thrown away)."""

    def __init__(self, bindir: str, durable: bool = False):
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="companion-pg-"))
        self.run_as = []
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres")
            self.run_as = ["runuser", "-u", "postgres", "--"]
        self.data, self.port = self.base / "data", free_port()
        self.settings = f"-k {self.base} -p {self.port} -h 127.0.0.1 -c max_connections=200"
        if not durable:
            self.settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._run(
            "initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "--no-sync"
        )
        self.start()

    def _run(self, program: str, *args: str) -> None:
        try:
            subprocess.run(
                [*self.run_as, f"{self.bindir}/{program}", *args], check=True, capture_output=True, timeout=120
            )
        except subprocess.CalledProcessError as e:
            log = self.base / "log"
            raise RuntimeError(
                f"PostgreSQL's {program} failed: {e.stderr.decode()} {log.read_text() if log.exists() else ''}"
            ) from None

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-o", self.settings, "-l", str(self.base / "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        subprocess.run(
            [*self.run_as, f"{self.bindir}/pg_ctl", "-D", str(self.data), "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(self.base, ignore_errors=True)
