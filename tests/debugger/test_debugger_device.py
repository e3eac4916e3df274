"""The engine on host programs (sample_models/devrun): SQE stepping through a label loop, wait
and fault breakpoints, the device tables, device memory, program output."""
import pytest

from debugger_testing import DEVRUN, debugger, finished, stopped
from workbench.debugger.outcomes import Printed, ProgramOutput, Stopped, TableOutcome
from workbench.debugger.views import device_views, timeline_views


def test_stepping_sqes_through_the_label_loop():
    d = debugger(f"{DEVRUN}/label_loop.py")
    try:
        retired, printed = [], []
        while isinstance((out := d.step("sqe"))[-1], Stopped):
            retired.append(out[-1].event.split("task=")[1].split("#")[0])
            printed += [o.text for o in out if isinstance(o, ProgramOutput)]
        loop = retired[retired.index("LabelSet(L0)"):]
        # five iterations, each ending in the switch that jumps back to L0 (index 1) or on
        assert loop.count("LabelSwitchByIndex(L1,L0)") == 5
        assert loop.count("LabelSet(L0)") == 5 and loop.count("StreamActive(rt2)") == 5
        # then ri_destroy unbinds the model's two streams on the hardware
        assert loop[-6:] == ["LabelSwitchByIndex(L1,L0)", "LabelSet(L1)", "EndGraph(m0)",
                             "NotifyWait(endGraph m0)", "ModelMaintaince(unbind rt1 to m0)",
                             "ModelMaintaince(unbind rt2 to m0)"]
        printed += [o.text for o in out if isinstance(o, ProgramOutput)]
        assert "acc == 5 * x: True" in "".join(printed)
    finally:
        d.close()


def test_break_label_and_next_sqe_stays_on_the_stream():
    d = debugger(f"{DEVRUN}/label_loop.py")
    try:
        d.add_breakpoint(["label", "0"])
        hits = [stopped(d.cont()) for _ in range(5)]
        assert all("LabelSet(L0)" in h.event for h in hits)
        # the default chip (a 910B) has no AutoSplit: the label SQE reached the stream's SQ
        # when the program set the label, after the two binds' ModelMaintaince tasks
        assert hits[0].where == ("program > label_loop.py:51 in <module> > model 0 > s "
                                 "(stream rt1) > SQE 1 LabelSet(L0)#3")
        d.granularity = "sqe"
        for _ in range(6):
            assert "stream rt1) >" in stopped(d.next()).where
        labels = device_views.labels(d.run.world.runtime)
        assert labels.rows == (("0", "0", "rt1", "1"), ("0", "1", "rt1", "8"))
        models = device_views.models(d.run.world.runtime)
        assert models.rows[0][:4] == ("0", "model0", "loaded", "yes")
        end = finished(d.cont())
        assert end.summary == ("exit status 0",)
    finally:
        d.close()


def test_break_wait_event_stops_at_the_consumers_wait():
    d = debugger(f"{DEVRUN}/producer_consumer.py")
    try:
        d.add_breakpoint(["wait", "event"])
        s = stopped(d.cont())   # the consumer is stream rt3 (the new context's default is 1)
        assert s.event == "EventWaitBlocked event_id=0 rt_stream=3 time_ns=0"
        events = device_views.events(d.run.world.runtime)
        assert events.rows == (("0", "0", "clear", "rt2", "rt3", "rt3"),)
        s = stopped(d.cont())
        assert s.event == "EventWaitSatisfied event_id=0 rt_stream=3 time_ns=2008"
        streams = device_views.streams(d.run.world.runtime)
        assert [r[1] for r in streams.rows] == ["rt0", "rt1", "rt2", "rt3"]
    finally:
        d.close()


def test_break_wait_event_on_the_missing_wait_sample_never_stops_but_the_race_does():
    d = debugger(f"{DEVRUN}/missing_wait.py", race_check=True)
    try:
        d.add_breakpoint(["wait", "event"])
        s = stopped(d.cont())   # nothing waits (that is the bug): the race stops it, by default
        assert s.event.startswith("FaultFound fault=race message=Add (task 2, SQE 0 of stream rt2)")
        assert [r.text for r in s.reasons] == ["fault race"]
        end = finished(d.cont())
        assert any(line.startswith("fault: missing_wait.py:") and "race: Add" in line
                   for line in end.summary)
        d.add_breakpoint(["fault", "race"])
        d.restart()
        s = stopped(d.cont())   # the breakpoint's stop, not a second one for the default
        assert [r.text for r in s.reasons] == ["breakpoint 2 (fault race), hit 1"]
        assert s.event.startswith("FaultFound fault=race message=Add (task 2, SQE 0 of stream rt2)")
    finally:
        d.close()


def test_break_fault_on_the_deadlock_sample():
    d = debugger(f"{DEVRUN}/deadlock.py")
    try:
        d.add_breakpoint(["fault"])
        s = stopped(d.cont())
        assert s.event.startswith("FaultFound fault=deadlock message=synchronize stream rt2 can "
                                  "never finish: stream rt2 waits at StreamWaitEvent(e0)")
        streams = device_views.streams(d.run.world.runtime)
        assert ("0", "rt2", "blocked") == streams.rows[2][:3]
        assert streams.rows[2][-1] == "StreamWaitEvent(e0)#1"
        out = d.cont()
        assert out[0] == ProgramOutput("synchronize_stream(consumer) returned 507046\n")
        finished(out)
    finally:
        d.close()


def test_break_sqe_filters_and_a_condition():
    d = debugger(f"{DEVRUN}/label_loop.py")
    try:
        d.add_breakpoint(["sqe", "type=label_set", "rt_stream=1", "if", "time_ns > 20000"])
        s = stopped(d.cont())
        assert "LabelSet" in s.event and int(s.event.split("time_ns=")[1]) > 20000
    finally:
        d.close()


def test_watch_event_and_stream_show_old_and_new():
    d = debugger(f"{DEVRUN}/producer_consumer.py")
    try:
        d.add_watch(["event", "0"])
        d.add_watch(["rt_stream", "2"])
        reasons = []
        while isinstance((out := d.cont())[-1], Stopped):
            reasons += [r.text for r in out[-1].reasons]
        assert "watch 1 (event 0): <no device> -> recorded at 2008 ns" in reasons
        assert reasons[:2] == ["watch 2 (rt_stream 2): <no rt_stream 2> -> idle, SQE 0 of 1",
                               "watch 2 (rt_stream 2): idle, SQE 0 of 1 -> ready, SQE 0 of 2"]
        assert reasons[-1] == "watch 2 (rt_stream 2): ready, SQE 2 of 2 -> idle, SQE 2 of 2"
    finally:
        d.close()


def test_device_memory_tensor_and_timeline():
    d = debugger(f"{DEVRUN}/producer_consumer.py")
    try:
        d.add_breakpoint(["wait", "event"])
        stopped(d.cont())
        memory = device_views.memory(d.run.world.runtime)
        assert memory.rows[0][:2] == ("0", "total") and len(memory.rows) == 4
        blocks = d.run.world.runtime.device(0).memory.live_blocks()
        x_addr = blocks[0][0]
        shown = device_views.device_tensor(d.run.world.runtime, [hex(x_addr), "4"])
        assert isinstance(shown, Printed)
        assert shown.text.splitlines()[0] == f"tensor {x_addr:#x}: f32[4] (device 0 memory)"
        assert "[-1.      -0.99216 -0.98431 -0.97647]" in shown.text
        tl = timeline_views.timeline(d)
        # the stream by the program's name for it, as every pane names it
        assert isinstance(tl, TableOutcome) and [r[0] for r in tl.rows] == ["producer rt2"]
    finally:
        d.close()


@pytest.mark.parametrize("name, faults", [("autosplit.py", []), ("capture.py", []),
                                          ("timeout.py", ["fault timeout"])])
def test_other_samples_run_to_the_end_under_the_debugger(name, faults):
    d = debugger(f"{DEVRUN}/{name}")
    try:
        met = []   # a fault stops the run (by default), and continue goes on to the end
        while isinstance((out := d.cont())[-1], Stopped):
            met += [r.text for r in out[-1].reasons]
        assert met == faults
        assert finished(out).summary[-1].startswith("exit status")
    finally:
        d.close()


def test_finish_runs_to_the_end_of_the_models_execution():
    d = debugger(f"{DEVRUN}/label_loop.py")
    try:
        d.add_breakpoint(["label", "0"])
        stopped(d.cont())
        d.breakpoints[1].enabled = False
        s = stopped(d.finish())
        assert s.event.startswith("ModelFinished model_id=0")
        assert s.reasons[0].text == "finish: end of model 0's execution"
        assert s.where == "program > label_loop.py:68 in <module>"   # in ri_execute
        assert stopped(d.finish()).event == "PhaseEnd phase=program"
    finally:
        d.close()


def test_break_fault_stops_on_a_stream_the_program_left_waiting_forever(tmp_path):
    """The program never synchronizes: the fault is found when it ends, and breaks there."""
    script = tmp_path / "forgot.py"
    script.write_text("import npu_emu.acl as acl\nacl.init()\nacl.rt.set_device(0)\n"
                      "stream, _ = acl.rt.create_stream()\nnever, _ = acl.rt.create_event()\n"
                      "acl.rt.stream_wait_event(stream, never)\n")
    d = debugger(str(script))
    try:
        d.add_breakpoint(["fault"])
        s = stopped(d.cont())
        assert s.event.startswith("FaultFound fault=deadlock message=the program ended, and its "
                                  "streams can never finish: stream rt1 waits at "
                                  "StreamWaitEvent(e0)")
        finished(d.cont())
    finally:
        d.close()
