"""`gewb --version` says the installed package's version, and `gewb --help` is a user's summary
of the subcommands, not the module's developer docstring (issue 15)."""
from importlib.metadata import version

import pytest

from workbench.cli import _parser_adders, main


def test_version_is_the_package_metadatas(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"gewb {version('ge-workbench')}\n"


def test_help_summarises_every_subcommand_for_a_user(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: gewb [-h] [--version] COMMAND ...\n\nGE Workbench: ")
    assert "With no COMMAND, gewb opens the workbench app on the bundled sample model." in out
    names = ["tui", "graph", "ops", "compile", "passes", "lessons", "serve", "om-info",
             "conformance", "devrun", "exec", "repl", "run"]
    assert len(names) == len(_parser_adders())
    for name in names:
        assert f"\n    {name} " in out or f"\n    {name}\n" in out, name
    assert "`gewb COMMAND --help` says more about one command." in out
    for developer_words in ("command-line face", "logic lives elsewhere", "add_<name>_parser"):
        assert developer_words not in out
