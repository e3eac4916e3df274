"""One name per GE option on every face: `gewb compile --help`, `gewb exec --help` and the
debugger's `help set` list the options of the one table (ge_core/ge_options.py), and each face's
value reaches GraphManager as the same entry of GE's option map."""
import argparse
import re

import pytest

from ge_core.ge_options import GE_OPTIONS, Stage
from workbench.cli import main
from workbench.cli.exec import add_exec_parser
from workbench.cli.ge_option_flags import ge_option_map
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import TableOutcome
from workbench.debugger.targets.settings import Settings, with_setting

GE_GROUP = "GE options"


def _flags(capsys, command: str) -> list[str]:
    """The --NAME flags of a subcommand's GE options group, as its --help prints them."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    group = text[text.index(GE_GROUP):]
    return re.findall(r"^  --([a-z-]+)", group, re.MULTILINE)


def _set_rows() -> list[tuple[str, ...]]:
    outcomes = DebugSession().execute("help set")
    (table,) = [o for o in outcomes if isinstance(o, TableOutcome)]
    return [row for row in table.rows if row[1] != "(debugger)"]


def test_compile_exec_and_set_list_the_tables_options_under_its_names(capsys):
    every = [o.name for o in GE_OPTIONS]
    built = [o.name for o in GE_OPTIONS if o.stage is not Stage.EXECUTE]
    compile_flags, exec_flags = _flags(capsys, "compile"), _flags(capsys, "exec")
    set_rows = _set_rows()
    assert exec_flags == [row[0] for row in set_rows] == every
    # compile builds and never executes: it takes all but the execution's options
    assert compile_flags == built and set(every) - set(built) == {"exec-timeout"}
    assert [row[1] for row in set_rows] == [o.key for o in GE_OPTIONS]


VALUES = {"exclude-engines": "AiCoreEngine", "input-shape": "x:2,4", "dynamic-batch-size": "1,2",
          "dynamic-image-size": "8,8;16,16", "dynamic-dims": "1;2",
          "stream-max-parallel-num": "3", "max-task-count": "100", "exec-timeout": "7",
          "soc-version": "Ascend950", "memory-optimization-policy": "MemoryPriority"}


@pytest.mark.parametrize("option", GE_OPTIONS, ids=lambda o: o.name)
def test_a_flag_and_its_set_name_give_the_same_ge_option_map(option):
    parser = argparse.ArgumentParser()
    add_exec_parser(parser.add_subparsers())
    flag = [f"--{option.name}"] if option.type is bool else [f"--{option.name}",
                                                              VALUES[option.name]]
    args = parser.parse_args(["exec", "model.onnx", *flag])
    settings = with_setting(Settings(), option.name,
                            "on" if option.type is bool else VALUES[option.name])
    assert ge_option_map(args) == settings.ge_options() == {option.key: option.to_ge(
        option.parse(flag[-1]) if option.type is not bool else True)}


def test_set_completes_every_option_name_and_a_flags_on_off():
    from workbench.commands.completion import complete
    session = DebugSession()
    names = set(complete(session, "set ")[1])
    assert names == {o.name for o in GE_OPTIONS} | {"seed", "race-check", "input"}
    for option in GE_OPTIONS:
        expected = ["off", "on"] if option.type is bool else []
        assert complete(session, f"set {option.name} ")[1] == expected, option.name
