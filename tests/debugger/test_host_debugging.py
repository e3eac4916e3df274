"""pdb and cuda-gdb at a host program's side, through the command table: line breakpoints with
Python conditions, step/next/finish by line in the one tick order, the program's frames and
variables, failed facade calls (handle acl-error), post-mortem (handle python-error), `break
call`, streams by the program's names, and a busy loop that Ctrl-C parks and closing ends."""
import shutil
import threading
import time
from pathlib import Path

import pytest

from debugger_testing import ROOT
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error, Finished, Printed, Stopped, TableOutcome
from workbench.debugger.program_output import MAX_KEPT

BUGS = ROOT / "tests" / "data" / "host_bugs"

LINES = """import npu_emu.acl as acl


def helper(n):
    total = 0
    for i in range(n):
        total += i
    return total


acl.init()
acl.rt.set_device(0)
stream, ret = acl.rt.create_stream()
x = helper(3)
y = x * 2
print("y", y)
"""


@pytest.fixture
def session(tmp_path: Path):
    (tmp_path / "lines.py").write_text(LINES)
    for name in ("unpacked_handle.py", "raise_in_helper.py", "forgotten_record.py",
                 "wrong_stream.py"):
        shutil.copy(BUGS / name, tmp_path / name)
    s = DebugSession(tmp_path)
    yield s
    s.close()


def last(outcomes):
    return outcomes[-1]


def text(outcomes) -> str:
    return "\n".join(o.text for o in outcomes if isinstance(o, Printed))


def test_the_parked_programs_frames_are_read_with_the_collector_paused(session, monkeypatch):
    """sys._current_frames with a collection inside it deadlocked `up` on CPython before
    3.11.9 (gh-106883): it is read with the collector paused."""
    import gc
    import sys
    session.execute("target lines.py")
    session.execute("break lines.py:7")
    session.execute("continue")
    read = sys._current_frames
    collecting = []

    def frames():
        collecting.append(gc.isenabled())
        return read()
    monkeypatch.setattr(sys, "_current_frames", frames)
    assert text(session.execute("up")).startswith("#1  lines.py:14")
    assert collecting and not any(collecting) and gc.isenabled()


def test_a_line_breakpoint_with_a_python_condition_then_line_stepping(session):
    session.execute("target lines.py")
    assert text(session.execute("break lines.py:7 if i == 2")) == \
        "breakpoint 1: lines.py:7 if i == 2"
    stop = last(session.execute("continue"))
    assert isinstance(stop, Stopped) and stop.where == "program > lines.py:7 in helper"
    assert stop.reasons[0].text == "breakpoint 1 (lines.py:7 if i == 2), hit 1"
    assert text(session.execute("print total + 100")) == "total + 100 = 101"   # 0 + 1
    (out,) = session.execute("print stage")   # the expression's own error, said as such
    assert isinstance(out, Error) and out.message == \
        "print stage: the expression raised NameError: name 'stage' is not defined"
    locals_table = last(session.execute("info locals"))
    assert isinstance(locals_table, TableOutcome)
    assert locals_table.rows == (("n", "3"), ("total", "1"), ("i", "2"))
    assert text(session.execute("bt")).splitlines() == [
        "> #0  lines.py:7 in helper: total += i", "  #1  lines.py:14 in <module>: x = helper(3)"]
    assert text(session.execute("up")) == "#1  lines.py:14 in <module>: x = helper(3)"
    assert "stream" in dict(last(session.execute("info locals")).rows)
    assert "=>  14  x = helper(3)" in text(session.execute("list"))
    assert isinstance(last(session.execute("up")), Error)
    session.execute("down")
    step = last(session.execute("step line"))     # back to the loop's head, in the same tick order
    assert step.where == "program > lines.py:6 in helper" and step.tick == stop.tick + 1
    fin = last(session.execute("finish"))          # out of helper: the caller's next line
    assert fin.where == "program > lines.py:15 in <module>"
    assert text(session.execute("p x")) == "x = 3"
    assert last(session.execute("next line")).where == "program > lines.py:16 in <module>"
    end = session.execute("continue")
    assert isinstance(last(end), Finished) and "y 6" in end[0].text


def test_a_condition_that_fails_in_the_frame_stops_with_the_error(session):
    session.execute("target lines.py")
    session.execute("break lines.py:7 if nothing > 1")
    stop = last(session.execute("continue"))
    assert "NameError: name 'nothing' is not defined" in stop.reasons[0].text


def test_failed_calls_are_warnings_where_they_happened_and_stop_parks_before_the_return(
        session):
    session.execute("target unpacked_handle.py")
    out = session.execute("continue")
    assert text(out).startswith("warning: unpacked_handle.py:11: acl.rt.launch_kernel returned "
                                "ACL_ERROR_INVALID_PARAM (100000)")
    assert ("warning: 2 API calls failed, the first at unpacked_handle.py:11 "
            "(acl.get_recent_err_msg() says why each time)") in last(out).summary
    session.execute("handle acl-error stop")
    session.execute("restart")
    stop = last(session.execute("continue"))
    assert stop.reasons[0].text == ("acl-error: acl.rt.launch_kernel returned "
                                    "ACL_ERROR_INVALID_PARAM")
    assert "unpacked_handle.py:11 in <module>" in text(session.execute("where"))
    assert text(session.execute("print s")) == "s = (1342177280, 0)"   # the packed pair
    session.execute("handle acl-error hide")
    out = session.execute("continue")
    assert "warning" not in text(out) and not any("warning" in line
                                                  for line in last(out).summary)


def test_python_error_stop_parks_post_mortem_with_the_frames_inspectable(session):
    session.execute("target raise_in_helper.py")
    session.execute("handle python-error stop")
    stop = last(session.execute("continue"))
    assert stop.reasons[0].text == "python-error: ValueError: factor must not be 0 (post-mortem)"
    assert stop.where == "program > raise_in_helper.py:7 in scale"
    assert text(session.execute("p factor, values")) == "factor, values = (0, [1, 2, 3])"
    session.execute("up")
    assert text(session.execute("p data")) == "data = [1, 2, 3]"
    end = last(session.execute("continue"))
    assert end.summary[-1] == "exit status 1"


def test_break_call_stops_before_the_facade_call_is_made(session):
    session.execute("target forgotten_record.py")
    assert isinstance(last(session.execute("break call acl.rt.stream_wait_evnt")), Error)
    session.execute("break call acl.rt.stream_wait_event if consumer > 0")
    session.execute("handle deadlock nostop")
    stop = last(session.execute("continue"))
    assert stop.event.startswith("AclCallMade api=acl.rt.stream_wait_event args=stream=")
    assert stop.where == "program > forgotten_record.py:14 in <module>"
    streams = last(session.execute("info streams"))
    assert streams.rows[-1][2] == "consumer" and streams.rows[-1][3] == "idle"   # not yet


def test_streams_and_events_by_the_program_s_names_in_tables_and_fault_chains(session):
    session.execute("target forgotten_record.py")
    stop = last(session.execute("continue"))
    assert stop.reasons[0].text == "fault deadlock"
    streams = last(session.execute("info streams"))
    assert [row[2] for row in streams.rows] == ["-", "producer", "consumer"]
    events = last(session.execute("info events"))
    assert events.rows[0][2] == "y_ready"
    end = last(session.execute("continue"))
    assert any("consumer (stream rt2) waits at StreamWaitEvent(e0)" in line
               and "for y_ready (event 0)" in line for line in end.summary)


def test_the_race_hint_ends_a_run_without_the_race_check_and_the_check_confirms_it(session):
    session.execute("target wrong_stream.py")
    end = last(session.execute("continue"))
    assert any(line.startswith("hint: stream rt0 and producer (stream rt1) wrote device "
                               "memory with nothing ordering them") for line in end.summary)
    session.execute("set race-check on")
    stop = last(session.execute("continue"))
    assert stop.reasons[0].text == "fault race"


def test_ctrl_c_parks_a_busy_loop_and_closing_ends_one_that_runs(tmp_path):
    (tmp_path / "busy.py").write_text("n = 0\nwhile True:\n    n += 1\n")
    s = DebugSession(tmp_path)
    s.execute("target busy.py")
    d = s.debugger_or_fail()
    threading.Timer(0.3, d.interrupt).start()
    stop = last(s.execute("continue"))
    assert stop.reasons[0].text == "interrupted" and "busy.py:" in stop.where
    assert text(s.execute("p n > 0")) == "n > 0 = True"
    worker = threading.Thread(target=s.execute, args=("continue",))
    worker.start()
    time.sleep(0.2)
    began = time.monotonic()
    s.close()                         # the program is looping: it unwinds at its next line
    worker.join(5)
    assert not worker.is_alive() and time.monotonic() - began < 2
    assert not [t for t in threading.enumerate() if t.name == "gewb-target" and t.is_alive()]


def test_a_program_printing_100_mb_is_kept_bounded(tmp_path):
    (tmp_path / "loud.py").write_text("import sys\nchunk = 'x' * 999 + '\\n'\n"
                                      "for _ in range(100_000):\n    sys.stdout.write(chunk)\n")
    s = DebugSession(tmp_path)
    s.execute("target loud.py")
    out = s.execute("continue")
    s.close()
    assert len(out[0].text) < MAX_KEPT + 200
    assert out[0].text.rstrip().endswith(f"[{100_000_000 - MAX_KEPT} more characters of "
                                         f"program output not kept: the workbench keeps "
                                         f"{MAX_KEPT} between two stops]")


def test_a_line_breakpoint_names_a_statement_of_the_program(session):
    session.execute("target lines.py")
    assert last(session.execute("break lines.py:2")).message == (
        "break lines.py:2: no statement starts on line 2 (the next one is 4)")
    assert last(session.execute("break other.py:5")).message == (
        "break other.py:5: only lines of lines.py, the program, can break")


def test_a_stop_on_a_failed_call_already_has_it_placed_for_the_source_pane(session):
    session.execute("target unpacked_handle.py")
    session.execute("handle acl-error stop")
    out = session.execute("continue")
    assert text(out).startswith("warning: unpacked_handle.py:11:") and isinstance(last(out),
                                                                                   Stopped)
    program = session.debugger_or_fail().state.program
    assert [site.line for _, site in program.fault_sites] == [11]


THREADED = """import contextvars
import threading

import npu_emu.acl as acl

acl.init()
acl.rt.set_device(0)
submitted, finish = threading.Event(), threading.Event()


def worker():
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    event, _ = acl.rt.create_event()
    acl.rt.record_event(event, stream)   # an SQE submitted by this thread, not the script's
    submitted.set()
    finish.wait()


helper = threading.Thread(target=contextvars.copy_context().run, args=(worker,))
helper.start()
submitted.wait()
where = "main"
finish.set()
helper.join()
"""


def test_a_worker_thread_s_sqes_leave_the_frames_those_of_the_thread_running_the_script(
        tmp_path):
    """A helper thread that submitted SQEs and is still alive at the stop is not the program:
    `print` and `bt` read the thread running the script."""
    (tmp_path / "threaded.py").write_text(THREADED)
    s = DebugSession(tmp_path)
    try:
        s.execute("target threaded.py")
        s.execute("break threaded.py:24")
        assert isinstance(last(s.execute("continue")), Stopped)
        assert text(s.execute("print where")) == "where = 'main'"
        assert text(s.execute("bt")) == "> #0  threaded.py:24 in <module>: finish.set()"
    finally:
        s.close()
