"""The two kinds of stream named apart everywhere (issue 15: `stream=N` meant GE's logical stream
in `break distribute` and the runtime's in `break sqe` and `info streams`): logical_stream (GE's,
from stream allocation) and rt_stream (the runtime's, that SQEs run on), in filters, conditions,
event lines, `where:` and tables."""
import re

import pytest

from debugger_testing import DEVRUN, ROOT, TINY, debugger, finished, stopped
from workbench.commands.inspecting import INFO
from workbench.debugger.breakpoints import BreakpointError
from workbench.debugger.watches import WatchError


@pytest.fixture
def tiny():
    d = debugger(TINY)
    yield d
    d.close()


def test_break_distribute_by_logical_stream_names_both_kinds(tiny):
    tiny.add_breakpoint(["distribute", "logical_stream=1"])
    s = stopped(tiny.cont())
    fields = dict(w.split("=", 1) for w in s.event.split()[1:])
    assert fields["logical_stream"] == "1" and "stream_id" not in fields
    rt = fields["rt_stream"]
    assert s.where.endswith(f"DoTaskSink > stream s1/rt{rt}")   # the pair: one stream
    # the binding the event shows is the one `info streams` shows for that rt stream
    table = INFO["streams"](tiny)
    assert table.headers[:2] == ("dev", "stream")
    assert f"s1/rt{rt}" in [r[1] for r in table.rows]


def test_break_distribute_by_rt_stream_and_a_condition_on_both(tiny):
    tiny.add_breakpoint(["distribute", "rt_stream=2", "if", "logical_stream == 1 and "
                                                           "rt_stream == 2"])
    s = stopped(tiny.cont())
    assert "logical_stream=1 rt_stream=2" in s.event and s.reasons[0].kind == "breakpoint"


def test_break_sqe_by_rt_stream_and_where_says_rt_stream():
    d = debugger(f"{DEVRUN}/producer_consumer.py")
    try:
        d.add_breakpoint(["sqe", "rt_stream=3", "if", "rt_stream == 3"])
        s = stopped(d.cont())
        assert " > consumer (stream rt3) > SQE " in s.where   # by its variable, too
    finally:
        d.close()


@pytest.mark.parametrize("words, message", [
    (["distribute", "stream=1"], "which stream? logical_stream= or rt_stream= (logical_stream: "
                                 "GE's, from stream allocation; rt_stream: the runtime's, that "
                                 "SQEs run on)"),
    (["sqe", "stream=1"], "which stream? rt_stream= (logical_stream: GE's"),
    (["distribute", "if", "stream_id == 1"], "no stream_id on these events"),
    (["sqe", "if", "stream == 1"], "no stream on these events"),
])
def test_the_bare_word_stream_is_refused_with_the_two_kinds(tiny, words, message):
    with pytest.raises(BreakpointError) as info:
        tiny.add_breakpoint(words)
    assert message in str(info.value)


def test_watch_takes_an_rt_stream(tiny):
    with pytest.raises(WatchError, match=r"watch rt_stream N: a runtime stream"):
        tiny.add_watch(["stream", "1"])
    w = tiny.add_watch(["rt_stream", "1"])
    assert (w.spec, w.value) == ("rt_stream 1", "<no rt_stream 1>")


# a stream as a message might name it the old ways: `rt_stream 2`, `stream 2`, `stream(s) 2`
_OLD_NAME = re.compile(r"\brt_stream \d|\bstreams? \d|\bstream\(s\) \d")


def test_the_emulator_s_messages_name_a_stream_as_every_face_does():
    """The runtime knows only its ids; GE names the pair it binds (s1/rt2), so a fault's
    wait-for chain, an SQE's place, `where`, `info streams` and devrun's summary all say the
    same name, and a host program's stream is rt2."""
    d = debugger(f"{DEVRUN}/deadlock.py")
    try:
        s = stopped(d.cont())   # the deadlock
        rt = d.run.world.runtime
        texts = [f.message for f in rt.faults] + [s.where, s.event] + \
            [" ".join(r) for r in INFO["streams"](d).rows]
        assert any("stream rt2 waits at StreamWaitEvent(e0) (task 1, SQE 0 of stream rt2)" in t
                   for t in texts), texts
        assert not [t for t in texts if _OLD_NAME.search(t)]
    finally:
        d.close()
    tiny = debugger(TINY)
    try:
        tiny.add_breakpoint(["sqe", "type=kernel_aicore"])
        s = stopped(tiny.cont())   # a kernel of the model: on a stream GE bound
        rt = tiny.run.world.runtime
        bound = {sid: name for sid, name in rt.stream_names.items()}
        assert bound and all(re.fullmatch(r"s\d+/rt\d+", n) for n in bound.values())
        stream = next(st for dev in rt.devices.values() for st in dev.scheduler.streams
                      if st.id in bound and st.queued())
        assert stream.queued()[0].where().endswith(f"of stream {bound[stream.id]})")
        assert re.search(r" > stream s\d+/rt\d+ > SQE ", s.where), s.where
    finally:
        tiny.close()


def test_devrun_names_the_streams_as_the_debugger_does(capsys):
    from workbench.cli.devrun import run_script
    run_script(ROOT / DEVRUN / "deadlock.py", False, None)
    out = capsys.readouterr().out
    assert "  stream rt1: " in out and "consumer (stream rt2) waits at" in out
    assert not _OLD_NAME.search(out), out


def test_info_faults_lists_each_fault_found_by_the_program_s_names():
    d = debugger(f"{DEVRUN}/deadlock.py")
    try:
        assert INFO["faults"](d).text == "no faults found so far"
        stopped(d.cont())   # the deadlock
        table = INFO["faults"](d)
        (row,) = table.rows
        assert row[0] == "1" and row[1].startswith("deadlock: ")
        assert "consumer (stream rt2) waits at StreamWaitEvent(e0)" in row[1], row
    finally:
        d.close()


def test_a_fault_named_once_stays_named_once_after_the_program_ends():
    """After the program's end its faults are the ones placed in its script, named already:
    the device pane and `info faults` named them again (`s (s (stream rt1))`)."""
    d = debugger(f"{DEVRUN}/deadlock.py")
    try:
        d.cont()   # the deadlock
        finished(d.cont())
        (row,) = INFO["faults"](d).rows
        assert "consumer (stream rt2) waits" in row[1] and "consumer (consumer" not in row[1]
    finally:
        d.close()


def test_a_lane_cuts_the_program_s_name_never_the_stream_s_id():
    """Timeline lanes are 12 columns: `compute_stream_a rt2` and `compute_stream_b rt3` both
    showed as `compute_stre`, one lane like the other."""
    from workbench.debugger.stream_names import named_stream
    names = {2: "compute_stream_a", 3: "compute_stream_b", 4: "p"}
    cut = [named_stream(s, names=names, width=12) for s in (2, 3, 4)]
    assert cut == ["compute… rt2", "compute… rt3", "p rt4"]
    assert named_stream(2, {2: 0}, names) == "compute_stream_a s0/rt2"   # no width: whole


def test_info_events_names_the_streams_that_record_and_wait_by_the_program_s_names():
    d = debugger(f"{DEVRUN}/producer_consumer.py")
    try:
        d.add_breakpoint(["call", "acl.rt.synchronize_stream"])
        stopped(d.cont())
        (row,) = INFO["events"](d).rows
        assert row[2:] == ("y_ready", "clear", "producer rt2", "consumer rt3", "-"), row
    finally:
        d.close()


def test_info_faults_after_a_clean_run_says_none_were_found_not_so_far():
    d = debugger(TINY)
    try:
        finished(d.cont())
        assert INFO["faults"](d).text == "no faults found"
    finally:
        d.close()
