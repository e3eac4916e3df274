"""The README's key table is the key map's (keymap.KEY_TABLE), and its screenshot exists."""
from tui_testing import ROOT

from workbench.tui.keymap import BINDINGS, KEY_TABLE


def test_the_readme_shows_every_key_of_the_key_map():
    readme = (ROOT / "README.md").read_text()
    for key, does in KEY_TABLE:
        assert f"| {key} | {does} |" in readme
    assert "](docs/workbench.svg)" in readme and (ROOT / "docs" / "workbench.svg").is_file()


def test_every_key_the_issue_names_is_bound():
    keys = {k for b in BINDINGS for k in b.key.split(",")}
    assert {"f5", "f10", "f11", "shift+f11", "f9", "f8", "ctrl+c", "q", "s", "n", "c", "b",
            "colon", *"1234567"} <= keys
