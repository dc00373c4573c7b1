"""Pyodide for the phones (issue 45: the phone itself referees): `make pyodide`.

Fetches the npm package pinned in ``pyodide.lock`` (``npm pack``, into a temporary folder),
refuses it unless its tarball has the integrity pinned there (sha512, as npm's
``dist.integrity`` says it), and puts in ``vendor/pyodide/<version>/`` (git-ignored) only
what a phone's browser fetches when Pyodide boots:

- ``pyodide.mjs`` (the loader the worker imports), ``pyodide.asm.mjs`` (Emscripten's
  glue), ``pyodide.asm.wasm`` (CPython), ``python_stdlib.zip`` (the standard library);
- ``pyodide-lock.json``, which the loader fetches before Python starts, without its
  packages: they live on a CDN, which the app never uses (the phone loads none of them; its
  Python comes in the app's own bundle).

The standard library is trimmed to what the engines, Jinja2 and MarkupSafe import and what
Pyodide imports as it boots (asyncio, logging, concurrent.futures, subprocess, socket,
shutil, zipfile, tempfile...): the packages and modules below are clearly not used by any
of them (mail, XML, HTTP, SQLite, the debuggers, the test tools...), and of the codecs only
Unicode's, ASCII, Latin-1 and cp437 (zip files' names) stay. Each file is then compressed once, at the strongest
levels (``.br``, ``.gz`` beside it), for companion/views/pyodide.py to send.

``vendor/pyodide/VERSION`` is written last: it is the stamp (Make's target) and what the
app reads to know which version it serves; without it the app serves no Pyodide and the
phones referee through the server as before. Nothing is fetched when it already names the
pinned version. Without npm (or the registry) this says so and leaves the app without
Pyodide; a tarball that does not match the pin is an error.

    python tools/vendor_pyodide.py [--dest vendor/pyodide] [--force]
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import brotli

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "pyodide.lock"

#: What the loader fetches (checked in Chromium's network log: nothing else is asked for).
FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")

#: Standard-library packages and modules nothing on the phone imports: neither the engines
#: (companion/games, cards.py, errors.py), nor Jinja2 and MarkupSafe, nor Pyodide's boot.
DROPPED = frozenset(
    # mail, the web's protocols, XML, databases
    "email http xml xmlrpc wsgiref sqlite3 mailbox imaplib smtplib poplib ftplib netrc mimetypes "
    "webbrowser urllib/request.py urllib/response.py urllib/robotparser.py plistlib configparser shelve "
    # processes, native code, the terminal
    "multiprocessing ctypes pty tty getpass _pyrepl rlcompleter "
    # debugging, profiling, testing, documentation, packaging
    "unittest doctest pdb bdb pydoc cProfile profile pstats trace tracemalloc timeit pickletools "
    "tabnanny pyclbr modulefinder zipapp compileall py_compile cmd symtable "
    # command lines, data formats, the rest
    "argparse optparse getopt tomllib zoneinfo wave statistics uuid antigravity this "
    "__hello__ __phello__ turtle sched filecmp fileinput graphlib colorsys quopri stringprep difflib".split()
)

#: The codecs kept: Unicode's, ASCII, Latin-1 and what Python itself asks for by name.
CODECS = frozenset(
    "__init__ aliases utf_8 utf_8_sig utf_16 utf_16_le utf_16_be utf_32 utf_32_le utf_32_be ascii "
    "latin_1 cp437 idna punycode raw_unicode_escape unicode_escape charmap undefined".split()
)


def dropped(name: str) -> bool:
    """Whether the zip member ``name`` (``email/utils.py``, ``pdb.py``...) is left out."""
    if name.startswith("encodings/") and name.endswith(".py"):
        return name[len("encodings/") : -3] not in CODECS
    top = name.split("/", 1)[0]
    module = top[:-3] if top.endswith(".py") else top
    return module in DROPPED or name in DROPPED


def trim_stdlib(data: bytes) -> bytes:
    """The standard library's zip without what is dropped. Its files are stored, not
    deflated: the whole zip is compressed for the way (brotli across files compresses
    better than each file alone), and Python reads a stored file without inflating it."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as full, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as kept:
        for info in full.infolist():
            if not dropped(info.filename):
                kept.writestr(info, full.read(info), compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


def trim_lockfile(data: bytes) -> bytes:
    """The lock file without its packages (the phone loads none; they live on a CDN)."""
    lock = json.loads(data)
    return json.dumps({**lock, "packages": {}}, separators=(",", ":")).encode()


def pinned() -> tuple[str, str]:
    """The version and the integrity string ``pyodide.lock`` pins."""
    for line in LOCK.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            spec, integrity = line.split()
            return spec.removeprefix("pyodide@"), integrity
    raise SystemExit(f"{LOCK} pins no version")


def integrity_of(data: bytes, algorithm: str) -> str:
    return f"{algorithm}-{base64.b64encode(hashlib.new(algorithm, data).digest()).decode()}"


def fetch(version: str, folder: Path) -> Path | None:
    """``npm pack pyodide@<version>`` into ``folder``: the tarball, or None when npm can't."""
    npm = shutil.which("npm")
    if npm is None:
        return None
    done = subprocess.run(
        [npm, "pack", f"pyodide@{version}", "--pack-destination", str(folder), "--silent"],
        capture_output=True,
        text=True,
        cwd=folder,
    )
    if done.returncode:
        print(done.stderr.strip(), file=sys.stderr)
        return None
    return folder / f"pyodide-{version}.tgz"


def compressed(path: Path) -> None:
    """``<file>.br`` and ``<file>.gz`` beside the file, at the strongest levels."""
    data = path.read_bytes()
    path.with_name(path.name + ".br").write_bytes(brotli.compress(data, quality=11, lgwin=24))
    path.with_name(path.name + ".gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=ROOT / "vendor" / "pyodide")
    parser.add_argument("--force", action="store_true", help="fetch again even if the pinned version is there")
    args = parser.parse_args(argv)
    version, integrity = pinned()
    stamp = args.dest / "VERSION"
    if not args.force and stamp.is_file() and stamp.read_text().strip() == version:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        tarball = fetch(version, Path(tmp))
        if tarball is None or not tarball.is_file():
            print(
                f"warning: pyodide@{version} could not be fetched (npm missing or the registry out of reach): "
                "the phones referee through the server until `make pyodide` succeeds",
                file=sys.stderr,
            )
            return 0
        data = tarball.read_bytes()
        found = integrity_of(data, integrity.split("-", 1)[0])
        if found != integrity:
            print(
                f"error: the tarball of pyodide@{version} is not the one pinned in {LOCK.name}:\n"
                f"  pinned {integrity}\n  got    {found}\nRefused: nothing was installed.",
                file=sys.stderr,
            )
            return 1
        staging = Path(tmp) / version
        staging.mkdir()
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for name in FILES:
                member = tar.extractfile(f"package/{name}")
                if member is None:
                    raise SystemExit(f"pyodide@{version} has no {name}")
                body = member.read()
                if name == "python_stdlib.zip":
                    body = trim_stdlib(body)
                elif name == "pyodide-lock.json":
                    body = trim_lockfile(body)
                (staging / name).write_bytes(body)
                compressed(staging / name)
        args.dest.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        for old in args.dest.iterdir():  # another version's files go
            if old.is_dir():
                shutil.rmtree(old)
        shutil.move(str(staging), args.dest / version)
        stamp.write_text(version + "\n")
    print(f"pyodide@{version} in {args.dest / version} (integrity checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
