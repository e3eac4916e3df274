"""The two kinds of stream named apart everywhere (issue 15: `stream=N` meant GE's logical stream
in `break distribute` and the runtime's in `break sqe` and `info streams`): logical_stream (GE's,
from stream allocation) and rt_stream (the runtime's, that SQEs run on), in filters, conditions,
event lines, `where:` and tables."""
import pytest

from debugger_testing import DEVRUN, TINY, debugger, stopped
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
    assert s.where.endswith(f"DoTaskSink > logical_stream 1 > rt_stream {rt}")
    # the binding the event shows is the one `info streams` shows for that rt stream
    table = INFO["streams"](tiny)
    assert table.headers[:3] == ("dev", "rt_stream", "logical_stream")
    assert next(r for r in table.rows if r[1] == rt)[2] == "1"


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
