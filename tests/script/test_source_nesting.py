"""A chain of scripts sourcing scripts stops at the source nesting limit, named in one line,
not Python's RecursionError as an internal error (issue 23)."""
from workbench.cli import main


def test_a_500_deep_source_chain_names_the_source_nesting_limit(tmp_path, capsys):
    for i in range(500):
        (tmp_path / f"c{i}.gwb").write_text(f"source c{i + 1}.gwb\n")
    (tmp_path / "c500.gwb").write_text("say the end\n")
    assert main(["run", str(tmp_path / "c0.gwb")]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.endswith("scripts nest deeper than the source nesting limit (32)")
    assert "RecursionError" not in last
