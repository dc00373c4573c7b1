"""Issue 14: schemathesis against the JSON API, in-process (WSGI), from the OpenAPI 3.1
document the app serves at /api/openapi.json. Every generated request, well-formed or
not, gets an answer the document declares (status, content type, body shape); none is a
5xx; valid data is accepted (or refused by the rules: 422) and invalid data refused.

Half the cases are aimed at a real game with its real edit key (and, when the body is
well-formed, its current version), so the move, undo and link bodies reach the engine
instead of stopping at 403/404/409."""

import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from companion import create_app
from tests.conftest import FUZZ

# Valid data the rules refuse (an illegal move, a dealer who is not playing) is a 422; a
# body over the server's 1 MB, valid or not, is a 413 (both documented).
CONFIG = schemathesis.config.SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {"expected-statuses": ["2xx", "403", "404", "409", "413", "422"]},
            "negative_data_rejection": {
                "expected-statuses": ["400", "403", "404", "405", "409", "413", "415", "422", "429"]
            },
        }
    }
)


#: The app under test. schemathesis parametrizes at collection, before any fixture exists
#: (its fixture-based loader fails on pytest 9.2), so the app lives in its own temporary
#: folder, removed when the tests end.
_FOLDER = tempfile.TemporaryDirectory(prefix="companion-openapi-")
APP = create_app(
    {
        "TESTING": True,
        "DATABASE": str(Path(_FOLDER.name) / "api.db"),
        "SECRET_KEY": "test",
        "CREATE_LIMIT": "100000 per minute",
    },
    instance_path=_FOLDER.name,
)
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", APP, config=CONFIG)


@pytest.fixture(scope="module")
def live():
    """A real game to aim at: its id and edit key."""
    created = APP.test_client().post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben", "Cat"]})
    assert created.status_code == 201
    return created.get_json()


def aim(case, app, game) -> None:
    """Point some cases at the live game; a well-formed body gets its current version."""
    if "game_id" not in (case.path_parameters or {}) or len(str(case.path_parameters["game_id"])) % 2:
        return
    case.path_parameters["game_id"] = game["id"]
    if case.headers is not None and "X-Edit-Key" in case.headers:
        case.headers["X-Edit-Key"] = game["edit_key"]
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    if positive and isinstance(case.body, dict) and isinstance(case.body.get("version"), int):
        case.body["version"] = app.extensions["store"].get(game["id"])["version"]


#: Cases per operation: a bounded run in `make test`, thousands in `make fuzz`.
EXAMPLES = 1000 if FUZZ else 15


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_answers_as_its_document_says(case, live):
    aim(case, APP, live)
    # The WSGI transport reads bodies as sent, without undoing gzip or br: ask for none.
    case.call_and_validate(headers={"Accept-Encoding": "identity"})
