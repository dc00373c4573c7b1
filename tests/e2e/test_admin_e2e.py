"""The admin page on a phone (issue 46, item 6), at 375x667 in both languages: the key asked
for and a wrong one refused, then a backup downloaded and restored, and a file that is no
backup refused. Each state is axe clean, fits the screen, and its controls are big enough
for a thumb."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from companion import admin
from companion.store import backup_games
from tests.conftest import served
from tests.e2e import helpers
from tests.e2e.conftest import e2e_app
from tests.e2e.helpers import api_game

SE = {"width": 375, "height": 667}
WORDS = {
    "en": {"key": "Server key", "wrong": "not this server's key", "restored": "Restored {n} game", "no": "Nothing was"},
    "ja": {
        "key": "サーバーのキー",
        "wrong": "このサーバーのキーではありません",
        "restored": "{n} ゲームを復元しました",
        "no": "何も変更",
    },
}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """A server of its own (a restore replaces every game), with its key."""
    app = e2e_app(tmp_path_factory.mktemp("club"))
    key = admin.new_key(app.instance_path)
    with served(app) as url:
        yield url, key


#: What a thumb taps on the organiser's pages.
CONTROLS = "main button:visible, main input:visible, main a.button:visible"


def looked_at(page, screens, name: str) -> None:
    """The state fits the phone, each control a thumb's size, axe has nothing to say."""
    helpers.looked_at(page, screens, name, controls=CONTROLS, full_page=True)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_organiser_backs_up_and_restores_from_a_phone(browser, club, screens, tmp_path, lang):
    url, key = club
    context = browser.new_context(viewport=SE, device_scale_factor=1, has_touch=True, is_mobile=True)
    context.add_cookies([{"name": "lang", "value": lang, "url": url}])
    page = context.new_page()
    words = WORDS[lang]
    try:
        api_game(page, url, "tute", ["Ann", "Ben", "Cat"])
        page.goto(f"{url}/admin")
        expect(page.get_by_label(words["key"])).to_be_visible()
        looked_at(page, screens, f"admin-{lang}-1-key")
        page.get_by_label(words["key"]).fill("aaaa-bbbb-cccc-dddd")
        page.locator("main form button[type=submit]").click()
        expect(page.locator("main .error")).to_contain_text(words["wrong"])
        looked_at(page, screens, f"admin-{lang}-2-wrong-key")

        page.get_by_label(words["key"]).fill(key.upper())  # as a phone's keyboard may capitalise it
        page.locator("main form button[type=submit]").click()
        download = page.locator("a[href$='/admin/backup']")
        expect(download).to_be_visible()
        looked_at(page, screens, f"admin-{lang}-3-organiser")
        with page.expect_download() as got:
            download.click()
        backup = tmp_path / "club.sqlite"
        got.value.save_as(backup)
        games = backup_games(backup)
        assert games >= 1

        page.set_input_files(
            "input[type=file]",
            files=[{"name": "x.sqlite", "mimeType": "application/x-sqlite3", "buffer": b"not a database"}],
        )
        page.locator("form[action$='/admin/restore'] button").click()
        expect(page.locator("main .error")).to_contain_text(words["no"])
        looked_at(page, screens, f"admin-{lang}-4-refused")

        page.set_input_files("input[type=file]", str(backup))
        page.locator("form[action$='/admin/restore'] button").click()
        expect(page.locator("main .notice")).to_contain_text(words["restored"].format(n=games), use_inner_text=True)
        looked_at(page, screens, f"admin-{lang}-5-restored")
    finally:
        context.close()


def test_a_phone_without_the_key_gets_no_backup(page, club):
    url, _ = club
    answer = page.request.get(f"{url}/admin/backup")
    assert answer.status == 403
    assert not Path(answer.url).name.endswith(".sqlite")
