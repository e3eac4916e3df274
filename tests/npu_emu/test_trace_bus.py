"""The trace bus hands a recorder compact records, which it makes events only when they are read
(the task scheduler stores its SQE records itself when the recorder is all that listens): what a
recorder keeps must be, event for event and tick for tick, what an observer is handed."""
from dataclasses import dataclass

import pytest

from npu_emu.base.trace import TraceBus, TraceEvent, TraceRecorder
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_HEAD
from npu_emu.runtime import Runtime, RuntimeConfig
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.events import SqeCompleted, SqeDispatched
from npu_emu.world import World


def build_model(rt):
    """Two head streams of timed kernels that sync through events both ways, and EndGraph."""
    model = rt.model_build_begin()
    a, b = rt.create_stream(), rt.create_stream()
    for s in (a, b):
        model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    for r in range(3):
        ea, eb = rt.create_event(), rt.create_event()
        for i in range(4):
            a.launch_timed(f"A{r}.{i}", 300 + 70 * i, Unit.AI_CORE)
            b.launch_timed(f"B{r}.{i}", 500 - 60 * i, Unit.AI_VECTOR)
        a.record_event(ea)
        b.record_event(eb)
        a.wait_event(eb)
        b.wait_event(ea)
    done = rt.create_event()
    b.record_event(done)
    a.wait_event(done)
    model.end_task(a)
    model.build_end()
    return model


def run(bus, between=lambda: None):
    rt = Runtime(RuntimeConfig(memory_bytes=1 << 20), bus=bus)
    with World(runtime=rt).entered():
        rt.set_device(0)
        model = build_model(rt)
        between()
        assert model.execute() == 0
        s = rt.create_stream()   # an ordinary stream too, synchronized from the host
        for i in range(5):
            s.launch_timed(f"K{i}", 40 * i + 9, Unit.AI_CORE)
        assert s.synchronize() == 0
    rt.close()
    return rt


def test_a_recorder_alone_keeps_what_an_observer_is_handed():
    alone_bus, alone = TraceBus(), TraceRecorder()
    alone_bus.subscribe(alone)
    assert alone_bus.sole_keeper is not None   # the scheduler stores its SQE records itself
    run(alone_bus)

    bus, recorder, seen = TraceBus(), TraceRecorder(), []
    bus.subscribe(recorder)
    bus.subscribe(seen.append)
    assert bus.sole_keeper is None   # every event goes through emit
    run(bus)

    assert recorder.events == seen   # the very fields the observer's events hold
    kept = [e.describe() for e in alone.events]
    assert kept == [e.describe() for e in seen] and alone.digest() == recorder.digest()
    assert [e.tick for e in alone.events] == list(range(1, len(kept) + 1)) and \
        alone.events[-1].tick == alone_bus.tick
    dispatched = [e for e in alone.events if isinstance(e, SqeDispatched)]
    completed = [e for e in alone.events if isinstance(e, SqeCompleted)]
    assert len(dispatched) == len(completed) > 30
    assert {(e.task, e.end_ns) for e in dispatched} == {(e.task, e.time_ns) for e in completed}


def test_events_read_during_a_run_stay_the_same_objects_and_in_order():
    bus, recorder = TraceBus(), TraceRecorder()
    bus.subscribe(recorder)
    early = []
    run(bus, between=lambda: early.extend(recorder.events))
    assert early and recorder.events[:len(early)] == early
    assert all(a is b for a, b in zip(early, recorder.events))
    assert [e.tick for e in recorder.events] == list(range(1, bus.tick + 1))


def test_an_unsubscribed_recorder_keeps_nothing_more():
    bus, recorder = TraceBus(), TraceRecorder()
    bus.subscribe(recorder)
    bus.unsubscribe(recorder)
    assert not bus.observed and bus.sole_keeper is None
    run(bus)
    assert recorder.events == [] and bus.tick == 0


def test_a_recorder_that_joins_late_counts_its_ticks_from_where_the_bus_is():
    bus, first, second = TraceBus(), TraceRecorder(), TraceRecorder()
    bus.subscribe(first)

    def swap():
        bus.unsubscribe(first)
        bus.subscribe(second)
        assert bus.sole_keeper is not None and bus.tick == len(first.events) > 0

    run(bus, between=swap)
    whole_bus, whole = TraceBus(), TraceRecorder()
    whole_bus.subscribe(whole)
    run(whole_bus)
    assert [e.tick for e in second.events] == list(range(len(first.events) + 1, bus.tick + 1))
    assert [e.describe() for e in first.events + second.events] == \
        [e.describe() for e in whole.events]


def test_a_recorder_counts_on_from_a_tick_the_bus_is_set_to():
    """A re-run restored at a checkpoint sets the bus's tick: a recorder's ticks follow it."""
    bus, recorder = TraceBus(), TraceRecorder()
    bus.subscribe(recorder)
    bus.tick = 1000

    def jump():
        assert recorder.events[-1].tick == bus.tick
        bus.tick = 5000

    run(bus, between=jump)
    ticks = [e.tick for e in recorder.events]
    built = len([t for t in ticks if t < 5000])
    assert ticks[:built] == list(range(1001, 1001 + built)) and built > 0
    assert ticks[built:] == list(range(5001, bus.tick + 1)) and bus.tick > 5000


def test_an_unheard_run_ends_in_the_state_a_heard_one_does():
    """Unheard, or heard by a recorder alone, a stream that retires an SQE while no other is
    ready dispatches its next at once, past the ready heap; an observer sees the heap used.
    Either way the device ends at the same time, with the same SQEs retired."""
    def end_state(bus):
        rt = run(bus)
        ts = rt.device(0).scheduler
        return ts.now, ts.retired, str(ts.last), [s.state for s in ts.streams], \
            dict(rt.device(0).event_times)

    heard, recorder = TraceBus(), TraceRecorder()
    heard.subscribe(recorder)
    observed = TraceBus()
    observed.subscribe(lambda event: None)
    assert end_state(TraceBus()) == end_state(heard) == end_state(observed)


@dataclass(frozen=True, slots=True)
class Heard(TraceEvent):
    n: int


@dataclass(frozen=True, slots=True)
class Unheard(TraceEvent):
    n: int

    def __post_init__(self) -> None:
        raise AssertionError("an event of a class nobody hears was built")


def test_an_observer_that_hears_some_classes_alone_is_handed_only_those_none_other_built():
    bus, seen = TraceBus(), []
    bus.subscribe(seen.append)
    bus.hear_only(seen.append, lambda cls: cls is Heard)
    for n in range(3):
        bus.emit(Unheard, n)
        bus.emit(Heard, n)
    assert [(e.tick, e.n) for e in seen] == [(2, 0), (4, 1), (6, 2)] and bus.tick == 6
    bus.hear_only(seen.append, None)   # every class again
    bus.emit(Heard, 3)
    with pytest.raises(AssertionError, match="nobody hears was built"):   # built: handed it
        bus.emit(Unheard, 4)
    assert [e.tick for e in seen] == [2, 4, 6, 7]


def test_a_receiver_is_handed_the_tick_and_fields_and_no_event_is_built_while_it_is_alone():
    bus, seen, fields = TraceBus(), [], []
    bus.subscribe(seen.append)
    bus.hear_only(seen.append, lambda cls: (lambda tick, n: fields.append((tick, n)))
                  if cls is Unheard else cls is Heard)
    for n in range(2):
        bus.emit(Unheard, n)
        bus.emit(Heard, n)
    assert fields == [(1, 0), (3, 1)] and [(e.tick, e.n) for e in seen] == [(2, 0), (4, 1)]
    bus.subscribe(fields.append)   # a second observer: every event is built, for both
    with pytest.raises(AssertionError, match="nobody hears was built"):
        bus.emit(Unheard, 2)


def test_a_receiver_that_answers_true_has_the_event_built_for_then_and_whole_events_skips_it():
    bus, seen, parked, fields = TraceBus(), [], [], []

    def receive(tick, n):
        fields.append(n)
        return n == 1
    bus.subscribe(seen.append)
    bus.hear_only(seen.append, lambda cls: receive if cls is Heard else False, parked.append)
    for n in range(3):
        bus.emit(Heard, n)
    assert fields == [0, 1, 2] and [(e.tick, e.n) for e in parked] == [(2, 1)] and seen == []
    with bus.whole_events():   # every event the observer needs built and handed to it
        bus.emit(Heard, 3)
    bus.emit(Heard, 4)
    assert fields == [0, 1, 2, 4] and [e.n for e in seen] == [3] and len(parked) == 1


def test_a_filter_builds_nothing_less_for_a_second_observer_or_a_recorder():
    """The filter spares events only while its observer is the only one; a recorder (handed
    records) still keeps every event, ticks and all."""
    bus, rec, filtered, everything = TraceBus(), TraceRecorder(), [], []
    bus.subscribe(rec)
    bus.subscribe(filtered.append)
    bus.hear_only(filtered.append, lambda cls: cls is not SqeDispatched)
    run(bus)
    assert not any(isinstance(e, SqeDispatched) for e in filtered)
    assert [e.tick for e in filtered] == [e.tick for e in rec.events
                                          if not isinstance(e, SqeDispatched)]
    bus.subscribe(everything.append)
    start = bus.tick
    run(bus)
    assert [e.describe() for e in everything] == [e.describe() for e in rec.events
                                                  if e.tick > start]
    assert any(isinstance(e, SqeDispatched) for e in filtered if e.tick > start)


def test_a_bus_keeps_nothing_of_an_observer_gone_where_its_receivers_events_went():
    """An observer's ``then`` (a gate's park, holding the gate and its stop's state) is held by
    the filter in force only: once the observer leaves, nothing on the bus refers to it, so
    reference counting frees it with the collector paused."""
    import gc
    import weakref

    class Gate:
        def see(self, event):
            pass

        def park(self, event):
            pass
    bus, gate = TraceBus(), Gate()
    bus.subscribe(gate.see)
    bus.hear_only(gate.see, lambda cls: (lambda tick, n: True) if cls is Heard else False,
                  gate.park)
    bus.emit(Heard, 1)
    gone = weakref.ref(gate)
    bus.unsubscribe(gate.see)
    gc.disable()
    try:
        del gate
        assert gone() is None
    finally:
        gc.enable()
