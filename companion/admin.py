"""The club organiser's key (issue 46, item 6): who may download a backup of the server and
restore one from the admin page (views/admin.py), from a phone, without a terminal.

The key is made once, on the server's first start, and ``make run`` prints it that once
(companion/serve.py); ``flask admin-key`` makes a new one, and the old stops working. Only
its hash is kept, in the instance folder beside the secret key (werkzeug's scrypt: a copy
of the folder does not give the key away). A phone that gave the key is remembered in its
signed session by the hash's fingerprint, so a new key also signs every such phone out.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

FILE = "admin_key"
#: Letters and digits nobody misreads (no 0/o, 1/l/i): the key is typed on a phone.
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
#: 4 groups of 4: about 79 bits.
_GROUPS, _GROUP = 4, 4


def _path(instance: str | Path) -> Path:
    return Path(instance) / FILE


def _write(path: Path, key: str, replace: bool) -> bool:
    """The key's hash written whole into its own file (this user's only), then put in place:
    over the old one (``replace``), or only if there is none (False if another process made
    one first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, made = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")  # mode 0600
    try:
        with os.fdopen(fd, "w") as f:
            f.write(generate_password_hash(key))
        if replace:
            os.replace(made, path)
            return True
        try:
            os.link(made, path)
        except FileExistsError:
            return False
        return True
    finally:
        if os.path.exists(made):
            os.unlink(made)


def _new() -> str:
    groups = ("".join(secrets.choice(_ALPHABET) for _ in range(_GROUP)) for _ in range(_GROUPS))
    return "-".join(groups)


def first_key(instance: str | Path) -> str | None:
    """A key for a server that has none yet, kept (its hash); None if it has one."""
    key = _new()
    return key if _write(_path(instance), key, replace=False) else None


def new_key(instance: str | Path) -> str:
    """A new key in place of the old one (which stops working), kept (its hash)."""
    key = _new()
    _write(_path(instance), key, replace=True)
    return key


def fingerprint(instance: str | Path) -> str | None:
    """What a phone's session keeps once it gave the key in force (None: no key yet)."""
    try:
        return hashlib.sha256(_path(instance).read_bytes()).hexdigest()[:32]
    except FileNotFoundError:
        return None


def check(instance: str | Path, key: str) -> bool:
    """Whether ``key`` is the key in force (spaces and case as a phone's keyboard adds them
    are forgiven)."""
    try:
        kept = _path(instance).read_text().strip()
    except FileNotFoundError:
        return False
    return check_password_hash(kept, "".join(key.split()).lower())
