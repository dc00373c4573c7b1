"""Templates read like the code (issue 13): no line over 120 characters."""

from tests import ROOT
from tests.conftest import make_app


def test_no_template_line_is_over_120_characters():
    long = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if len(line) > 120
    ]
    assert long == []


def _searches(app, monkeypatch) -> list[str]:
    """The template names the app's loader is asked for from now on."""
    asked: list[str] = []
    loader = app.jinja_env.loader
    get_source = loader.get_source

    def counted(environment, name):
        asked.append(name)
        return get_source(environment, name)

    monkeypatch.setattr(loader, "get_source", counted)
    return asked


def test_an_include_falls_back_to_the_shared_template_and_searches_for_the_missing_one_once(app, monkeypatch):
    # Tablanette has no record of its own (play/_no_record.html); Tute has one.
    asked = _searches(app, monkeypatch)
    for _ in range(3):
        assert app.jinja_env.select_template(["play/tablanette/_record.html", "play/_no_record.html"]).name == (
            "play/_no_record.html"
        )
        assert app.jinja_env.select_template(["play/tute/_record.html", "play/_no_record.html"]).name == (
            "play/tute/_record.html"
        )
    assert asked.count("play/tablanette/_record.html") == 1


def test_with_templates_reloading_a_game_template_added_later_is_found(app):
    from jinja2 import ChoiceLoader, DictLoader

    app.jinja_env.auto_reload = True
    added: dict[str, str] = {}
    app.jinja_env.loader = ChoiceLoader([DictLoader(added), app.jinja_env.loader])
    names = ["play/tablanette/_record.html", "play/_no_record.html"]
    assert app.jinja_env.select_template(names).name == "play/_no_record.html"
    added["play/tablanette/_record.html"] = "a record"
    assert app.jinja_env.select_template(names).name == "play/tablanette/_record.html"


def _compiles(app, monkeypatch) -> list[str]:
    """The templates the app's environment compiles from now on."""
    compiled: list[str] = []
    compile_ = app.jinja_env.compile

    def counted(source, name=None, filename=None, *args, **kwargs):
        compiled.append(name)
        return compile_(source, name, filename, *args, **kwargs)

    monkeypatch.setattr(app.jinja_env, "compile", counted)
    return compiled


def test_an_app_made_again_compiles_no_template_again_unless_its_source_changed(tmp_path, monkeypatch):
    from jinja2 import ChoiceLoader, FileSystemLoader

    mine = tmp_path / "templates"
    mine.mkdir()
    (mine / "note.html").write_text("first", encoding="utf-8")
    apps = []
    for n in range(3):
        (tmp_path / str(n)).mkdir()
        app = make_app(tmp_path / str(n))
        app.jinja_env.loader = ChoiceLoader([FileSystemLoader(mine), app.jinja_env.loader])
        apps.append((app, _compiles(app, monkeypatch)))
    (first, _), (second, compiled), (third, recompiled) = apps
    assert first.jinja_env.get_template("play/page.html") and first.jinja_env.get_template("note.html")
    assert second.jinja_env.get_template("play/page.html") and second.jinja_env.get_template("note.html")
    assert compiled == []
    (mine / "note.html").write_text("second", encoding="utf-8")
    assert third.jinja_env.get_template("note.html").render() == "second"
    assert recompiled == ["note.html"]
