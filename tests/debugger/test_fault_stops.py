"""A fault stops a run by default, as gdb stops on SIGSEGV: continue, step, next and finish park
where the runtime finds it, with the device as it was; `handle KIND nostop` lets a kind run on;
a `break fault` that stops there is the only reason given."""
import pytest

from workbench.debugger.fault_stops import FaultStopError, FaultStops
from workbench.debugger.views import device_views

from debugger_testing import DEVRUN, debugger, finished, stopped

DEADLOCK = f"{DEVRUN}/deadlock.py"
MESSAGE = ("FaultFound fault=deadlock message=synchronize stream rt2 can never finish: stream rt2 "
           "waits at StreamWaitEvent(e0) (task 1, SQE 0 of stream rt2) for event 0, which is "
           "never recorded")


@pytest.fixture
def deadlock():
    d = debugger(DEADLOCK)
    yield d
    d.close()


def _free_run_summary() -> tuple[str, ...]:
    d = debugger(DEADLOCK)
    try:
        d.fault_stops.handle("deadlock", "nostop")
        return finished(d.cont()).summary
    finally:
        d.close()


def test_continue_parks_at_the_deadlock_with_the_blocked_stream_then_ends_as_a_free_run(deadlock):
    s = stopped(deadlock.cont())
    assert s.event == MESSAGE and [r.text for r in s.reasons] == ["fault deadlock"]
    assert s.where == "program > deadlock.py:24 in <module>"
    streams = device_views.streams(deadlock.run.world.runtime)
    assert streams.rows[2][:3] == ("0", "rt2", "blocked")
    assert streams.rows[2][-1] == "StreamWaitEvent(e0)#1"
    end = finished(deadlock.cont())          # not met again: the run ends
    faults = [line for line in end.summary if line.startswith("fault:")]
    assert (len(faults) == 1
            and "deadlock.py:24: deadlock: synchronize consumer (stream rt2)" in faults[0])
    assert end.summary == _free_run_summary()   # the same report and exit status


@pytest.mark.parametrize("move", [lambda d: d.step("sqe", 5), lambda d: d.step("event", 50),
                                  lambda d: d.next(50), lambda d: d.finish(),
                                  lambda d: d.run_to(["model"])])
def test_every_way_forward_stops_at_the_fault(deadlock, move):
    stopped(deadlock.step("event", 3))       # inside the program phase, finish has an end
    s = stopped(move(deadlock))
    assert s.event == MESSAGE and s.reasons[0].text == "fault deadlock"


def test_nostop_runs_on_and_the_fault_is_still_reported(deadlock):
    assert deadlock.fault_stops.handle("deadlock", "nostop") == ["deadlock"]
    end = finished(deadlock.cont())
    assert any("deadlock: synchronize consumer (stream rt2)" in line for line in end.summary)
    deadlock.restart()
    deadlock.fault_stops.handle("all", "stop")
    assert stopped(deadlock.cont()).event == MESSAGE


def test_a_break_fault_stops_once_and_a_disabled_one_leaves_the_default(deadlock):
    bp = deadlock.add_breakpoint(["fault", "deadlock"])
    s = stopped(deadlock.cont())
    assert [r.text for r in s.reasons] == [f"breakpoint {bp.id} (fault deadlock), hit 1"]
    finished(deadlock.cont())
    bp.enabled = False
    deadlock.restart()
    assert [r.text for r in stopped(deadlock.cont()).reasons] == ["fault deadlock"]


def test_going_back_does_not_stop_at_the_fault(deadlock):
    stopped(deadlock.cont())
    finished(deadlock.cont())
    s = stopped(deadlock.goto(10))           # past the fault (tick 9), re-executed to
    assert s.tick == 10


def test_handle_names_a_bad_kind_or_action():
    stops = FaultStops()
    with pytest.raises(FaultStopError, match=r"no fault kind 'segv' \(deadlock, race"):
        stops.handle("segv", "stop")
    with pytest.raises(FaultStopError, match="'pass' is neither stop nor nostop"):
        stops.handle("oom", "pass")
    with pytest.raises(FaultStopError, match="'hide' is neither stop nor nostop"):
        stops.handle("python-error", "hide")
    assert stops.rows() == tuple((k, "stop") for k in ("deadlock", "race", "timeout", "oom",
                                                        "task")) + (
        ("acl-error", "nostop"), ("python-error", "nostop"))
