"""Templates read like the code (issue 13): no line over 120 characters."""

from tests import ROOT


def test_no_template_line_is_over_120_characters():
    long = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if len(line) > 120
    ]
    assert long == []
