"""One command table for every face: names, aliases, help, and one-line errors for bad input."""
from pathlib import Path

import pytest

from workbench.commands.command import UsageError
from workbench.commands.session import DebugSession
from workbench.commands.table import COMMANDS
from workbench.debugger.outcomes import Error, Finished, Printed, Stopped, TableOutcome

ROOT = Path(__file__).resolve().parents[2]

SPEC_COMMANDS = ["step", "next", "continue", "finish", "run-to", "reverse-step",
                 "reverse-continue", "goto", "break", "handle", "watch", "enable", "disable",
                 "delete", "info", "print", "diff", "passes", "where", "timeline", "dump", "export",
                 "target", "set", "save-script", "say", "pause", "help"]


@pytest.fixture
def session():
    s = DebugSession(base_dir=ROOT)
    yield s
    s.close()


def test_every_command_is_in_the_table_with_usage_and_help():
    for name in SPEC_COMMANDS:
        cmd = COMMANDS.lookup(name)
        assert cmd.usage.startswith(name) and cmd.help.endswith(".")
    assert COMMANDS.lookup("c").name == "continue" and COMMANDS.lookup("rs").name == \
        "reverse-step"


def test_unknown_commands_suggest_near_ones():
    with pytest.raises(UsageError, match=r"unknown command 'contnue' \(did you mean continue"):
        COMMANDS.lookup("contnue")


@pytest.mark.parametrize("line, message", [
    ("step", "no target: open one with `target FILE`"),
    ("target nowhere.onnx", "no such target: nowhere.onnx"),
    ("target sample_models/devrun", "no such target: sample_models/devrun"),
    ("target pyproject.toml", "pyproject.toml: not a target (an .onnx model, an .om file or "
                              "a .py host program)"),
    ("frob", "unknown command 'frob' (help lists them)"),
    ("handle segv nostop", "no fault kind 'segv' (deadlock, race, timeout, oom, task, "
                           "acl-error, python-error, all)"),
    ("handle deadlock", "usage: handle [KIND|all stop|nostop|hide]"),
    ("handle all ignore", "handle all: 'ignore' is neither stop nor nostop"),
    ("info 'unterminated", "No closing quotation"),
])
def test_bad_lines_answer_one_error(session, line, message):
    (out,) = session.execute(line)
    assert isinstance(out, Error) and message in out.message and "\n" not in out.message


@pytest.mark.parametrize("line, message", [
    ("step 0", "usage: step"),
    ("step pass x", "usage: step"),
    # a superscript digit is a digit to str.isdigit but no number to int()
    ("step ¹", "no stepping unit '¹' (stage"),
    ("step pass ¹", "usage: step"),
    ("run-to ¹", "no breakpoint kind '¹'"),
    ("goto soon", "the tick must be a number, not 'soon'"),
    ("break", "break what?"),
    ("break sqe type=kernel", "no SQE type 'kernel' (kernel_aicore"),
    ("break sqe colour=red", "no filter 'colour' here (filters: type=, rt_stream=)"),
    ("break fault flood", "no fault 'flood' (deadlock, race, timeout, oom, task)"),
    ("break node conv1 if __import__('os')", "Call is not allowed"),
    ("break node conv1 if nod == 'x'", "condition \"nod == 'x'\": no nod on these events "
                                        "(names: graph, node, op_type, pass_name, tick)"),
    ("break frob", "no breakpoint kind 'frob' (pass, node"),
    ("break wait semaphore", "usage: break wait event|notify [ID]"),
    ("run-to pass", "usage: run-to pass NAME"),
    ("watch node conv1", "usage: watch node NAME anchors"),
    ("watch rt_stream two", "rt_stream id must be a number"),
    ("watch notify -1", "notify id must be a number, 0 or more, not '-1'"),
    ("watch event " + "9" * 5000, "event id must be a number, 0 or more"),
    ("delete 9", "no breakpoint or watch 9"),
    ("info everything", "no table 'everything' for info (tables: streams, events"),
    ("info stream", "no table 'stream' for info (did you mean streams"),
    ("info", "usage: info streams|events"),
    ("print node", "usage: print node NAME"),
    ("print node nosuch", "no node 'nosuch'"),
    ("set colour red", "no setting 'colour' (settings: seed, race-check, input, "
                        "exclude-engines, autofuse, input-shape, dynamic-batch-size, "
                        "dynamic-image-size, dynamic-dims, switchn, stream-max-parallel-num, "
                        "single-stream, notify, hcom-parallel, minimise-events, soc-version, "
                        "max-task-count, auto-split, no-reuse, memory-optimization-policy, "
                        "offset-assigners, exec-timeout)"),
    ("set race-check maybe", "set race-check: bad value 'maybe': expected on or off"),
    ("set seed x", "set seed: bad value 'x': expected a whole number"),
    ("set max-task-count 1.5", "set max-task-count: bad value '1.5': expected a whole number"),
    ("export timeline x.json", "usage: export trace FILE.json"),
    ("run-to", "usage: run-to TICK"),
    ("reverse-step", "reverse-step: no earlier pass before tick 0"),
    ("reverse-continue", "no breakpoint hit before tick 0"),
    ("finish", "finish: not inside"),
    ("diff", "diff: no pass has run yet"),
])
def test_bad_uses_answer_one_error_naming_the_fault(session, line, message):
    session.execute("target sample_models/tiny_cnn.onnx")
    (out,) = session.execute(line)
    assert isinstance(out, Error), out
    assert message in out.message and "\n" not in out.message
    assert line not in session.recorded_lines()


def test_help_lists_commands_and_explains_one(session):
    (table,) = session.execute("help")
    assert isinstance(table, TableOutcome)
    assert [r[0] for r in table.rows] == [c.usage for c in COMMANDS.unique()]
    assert all(r[1] for r in table.rows)   # each with a line saying what it does
    (one,) = session.execute("help rs")
    assert isinstance(one, Printed) and one.text.startswith(
        "reverse-step [stage|pass|node|task|sqe|line|event] [N]\n  Back to")


def test_break_keeps_the_conditions_quotes(session):
    session.execute("target sample_models/tiny_cnn.onnx")
    (out,) = session.execute("break node type=Relu if 'left' in node")
    assert out.text == "breakpoint 1: node type=Relu if 'left' in node"
    stop = session.execute("continue")[-1]
    assert isinstance(stop, Stopped) and "node=left_relu" in stop.event


def test_target_and_set_keep_breakpoints_and_restart(session):
    session.execute("target sample_models/tiny_cnn.onnx")
    session.execute("break pass PrunePass")
    session.execute("continue")
    (out,) = session.execute("set seed 7")
    assert out.text == "seed = 7 (the target restarts)"
    d = session.debugger
    assert d.tick == 0 and d.target.settings.seed == 7 and list(d.breakpoints) == [1]
    (table,) = session.execute("info settings")
    assert ("seed", "7") in table.rows


def test_handle_set_before_the_target_holds_for_its_runs_and_is_saved(session, tmp_path):
    """gdb's handle: a default that stops at every fault, turned off per kind, before a target
    too; a script saved replays the same choice."""
    (table,) = session.execute("handle deadlock nostop")
    assert table.rows == (("deadlock", "nostop"),)
    session.execute("target sample_models/devrun/deadlock.py")
    assert isinstance(session.execute("continue")[-1], Finished)
    session.execute("handle all stop")
    session.execute("restart")
    stop = session.execute("continue")[-1]
    assert isinstance(stop, Stopped) and stop.reasons[0].text == "fault deadlock"
    (table,) = session.execute("handle")
    assert table.rows[0] == ("deadlock", "stop") and len(table.rows) == 7
    session.execute(f"save-script {tmp_path / 's.gwb'}")
    assert "handle deadlock nostop\n" in (tmp_path / "s.gwb").read_text()


def test_comments_and_blank_lines_do_nothing(session):
    assert session.execute("   ") == [] and session.execute("# a note") == []
    assert session.log == []


def test_a_corrupted_om_target_ends_its_run_with_one_line_naming_the_file(tmp_path):
    (tmp_path / "model.om").write_bytes(b"IMOD")
    s = DebugSession(base_dir=tmp_path)
    s.execute("target model.om")
    out = s.execute("continue")[-1]
    (line,) = out.summary
    assert "model.om" in line and "too short" in line


def test_dump_and_export_write_files(session, tmp_path):
    import json
    session.execute("target sample_models/devrun/label_loop.py")
    session.execute("break label 1")
    session.execute("continue")
    (out,) = session.execute(f"export trace {tmp_path / 'loop.json'}")
    assert out.text.startswith(f"trace written to {tmp_path / 'loop.json'}: ")
    events = json.loads((tmp_path / "loop.json").read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) > 50
    session.execute("target sample_models/tiny_cnn.onnx")
    session.execute("step stage 2")
    (out,) = session.execute(f"dump {tmp_path / 'dumps'}")
    assert out.text.startswith(f"dumped 2 files to {tmp_path / 'dumps'}: ge_tick_")
    (text,) = sorted((tmp_path / "dumps").glob("*.txt"))
    assert text.read_text().startswith("graph tiny_cnn (26 nodes)")
    (out,) = session.execute(f"export trace {tmp_path / 'compile.json'}")
    assert out.text.endswith(": 0 SQEs, 3 compile spans")   # Prepare, its GEPass, stage 1


def test_every_command_the_table_or_the_banner_names_has_help(session):
    """`help quit` once said unknown command while the banner offered `quit` (issue 15)."""
    from workbench.repl import BANNER
    offered = set(COMMANDS.names()) | set(BANNER.split("`")[1::2])
    assert {"quit", "help", "source"} <= offered
    for name in sorted(offered):
        out, *table = session.execute(f"help {name}")
        cmd = COMMANDS.lookup(name)
        assert len(table) == (cmd.help_table is not None), name
        assert isinstance(out, Printed) and out.text.startswith(cmd.usage), name
        assert cmd.help.endswith("."), name
    assert COMMANDS.lookup("exit").name == COMMANDS.lookup("q").name == "quit"


def test_show_names_a_pane_as_data_and_prints_nothing_headless(tmp_path):
    """`show PANE` is for the app (it brings the pane forward); in a transcript and at the REPL
    it prints nothing, and a pane that is not there is one usage line."""
    from workbench.commands.render import transcript_entry
    from workbench.debugger.outcomes import Show
    session = DebugSession(base_dir=tmp_path)
    assert session.execute("show device") == [Show("device")]
    assert transcript_entry("show device", [Show("device")]) == ["> show device"]
    [error] = session.execute("show nowhere")
    assert isinstance(error, Error) and error.message.startswith("usage: show graph|passes|")


def test_a_lessons_output_names_the_pane_that_shows_it():
    session = DebugSession(base_dir=ROOT / "sample_models")
    session.execute("target tiny_cnn.onnx")
    session.execute("step pass 3")
    panes = {line: session.execute(line)[0].pane for line in
             ("diff", "passes", "info memory-plan", "print node conv1", "info breakpoints")}
    session.close()
    assert panes == {"diff": "passes", "passes": "passes", "info memory-plan": "memory",
                     "print node conv1": "graph", "info breakpoints": None}
