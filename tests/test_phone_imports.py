"""What runs in the phone stands on its own (issue 45): the engine layer imports only the
standard library, and the bundle the phone's worker unpacks (companion/views/phone.py)
runs with nothing else installed: a Python without site-packages plays and renders from it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import zipfile
from io import BytesIO
from pathlib import Path

from companion.views.phone import bundle

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
ENGINE = [*sorted((PACKAGE / "games").glob("*.py")), PACKAGE / "cards.py", PACKAGE / "errors.py"]


def _imported(path: Path) -> set[str]:
    """The top-level names of what ``path`` imports (relative imports are the package's)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_engine_layer_imports_only_the_standard_library():
    for path in ENGINE:
        outside = {
            name
            for name in _imported(path)
            if name.split(".")[0] not in sys.stdlib_module_names
            and not name.startswith(("companion.games", "companion.cards", "companion.errors"))
            and name != "companion"
        }
        assert not outside, (path.name, outside)


def test_the_engine_layer_check_sees_a_third_party_import(tmp_path):
    """The check above fails on what it guards against (a library import)."""
    module = tmp_path / "m.py"
    module.write_text("from babel.lists import format_list\nimport json\n")
    assert _imported(module) == {"babel.lists", "json"}


def test_the_bundle_runs_a_game_with_nothing_installed(app, tmp_path):
    with app.test_request_context():
        _, data = bundle()
        record = {"routes": {}, "config": {"POLL_SECONDS": 0.5, "PUSH_POLL_SECONDS": 10}}
    zipfile.ZipFile(BytesIO(data)).extractall(tmp_path)
    # -I: no environment, no user site; -S: no site-packages (Flask, Babel, pydantic are not there).
    script = f"""
import json, sys
sys.path.insert(0, {str(tmp_path)!r})
from companion import games, phone
assert "flask" not in sys.modules and "babel" not in sys.modules
rules = games.get("tablanette")
state = rules.start(["Ann", "Ben"])
routes = {{e: "/x/" + e for e in ("play.move", "play.undo", "play.live", "games.show", "games.log",
          "games.transcript", "tally.screen", "rules.words", "rules.page")}}
row = {{"id": "g1", "game": "tablanette", "players": ["Ann", "Ben"], "options": {{}}, "version": 0, "deals": 0,
       "confirmed": None}}
phone.take(json.dumps({{"row": row, "state": rules.dump(state), "history": [], "said": None, "routes": routes,
                       "config": {json.dumps(record["config"])}, "language": "ja", "csrf": "t"}}))
fields = [["type", "layout"], ["cards[]", "2C"], ["cards[]", "3D"], ["cards[]", "4H"], ["cards[]", "8S"]]
said = json.loads(phone.tap(json.dumps({{"fields": fields, "current": ""}})))
assert said["status"] == 200 and said["applied"], said
assert "2♣" in said["html"] and "取り消す：" in said["html"], said["html"]
said = json.loads(phone.tap(json.dumps({{"fields": [["type", "play"], ["card", "2C"]], "current": ""}})))
assert said["status"] == 422 and "2♣はすでに場にあります" in said["html"], said
print("ok", sorted(m for m in sys.modules if m.split(".")[0] in ("jinja2", "markupsafe"))[:1])
"""
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")
