"""Going back frees what the run it replaces made at once (the journal's rewind breaks the
cycles of what was made since the checkpoint, Run.discard a side run's graphs', so reference
counting frees them), with the collector paused meanwhile (workbench/debugger/collector.py)."""
import gc
import weakref

import pytest

from debugger_testing import DEVRUN, TINY, debugger, stopped
from ge_core.graph import dump_graph


@pytest.fixture
def collector_off():
    """No cyclic collection at all: what is freed, reference counting freed."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def graph_text(d) -> str:
    return "".join(dump_graph(g) for g in d.state.graphs())


def _inside_compile(d) -> None:
    d.step("event")
    stopped(d.run_to_tick(300))
    assert d.state.graph is not None and d.state.pipeline is not None


def _garbage() -> int:
    """What only the collector would free, frozen or not (checkpoints freeze what is alive)."""
    gc.unfreeze()
    return gc.collect()


CLOSED_WORLD = 300   # a closed world's own cycles (its runtime's handles): ~130 objects


def test_going_back_frees_what_the_replaced_run_made_without_the_collector(collector_off):
    """Going back rewinds the live graph (ge_core/graph/journal.py): what the run made since
    the checkpoint (here Partition's engine subgraphs, ~700 objects) is freed by reference
    counting at once, the rest is the landing run's."""
    d = debugger(TINY, gap=20)
    try:
        d.step("event")
        stopped(d.run_to_tick(550))
        assert d.run.tracker.stage == "OptimizeSubgraph"
        old = weakref.ref(d.run.state)
        stopped(d.goto(100))
        assert old() is None and _garbage() < CLOSED_WORLD
        stopped(d.run_to_tick(550))
        stopped(d.reverse_step())
        assert _garbage() < CLOSED_WORLD and d.tick == 549
    finally:
        d.close()


def test_what_a_step_back_lets_go_is_freed_once_it_has_landed(collector_off):
    """The rewound journal's states, the engine subgraphs Partition made and the checkpoints
    after the one resumed from go to the debugger's Reaper, which frees them once the step has
    landed (workbench/debugger/reaper.py): their cycles broken first, so nothing is left to
    the collector."""
    d = debugger(TINY, gap=20)
    try:
        d.step("event")
        stopped(d.run_to_tick(550))
        assert d.run.tracker.stage == "OptimizeSubgraph"
        parts = [weakref.ref(p.graph) for p in d.state.pipeline.parts]
        batches = []
        free_later = d.reaper.free_later
        d.reaper.free_later = lambda garbage: (batches.append(len(garbage)), free_later(garbage))
        stopped(d.goto(100))
        d.reaper.wait()
        assert batches == [2] and parts   # the rewind's and the checkpoints after
        assert not [r for r in parts if r() is not None]
        assert _garbage() < CLOSED_WORLD
    finally:
        d.close()


def test_the_reaper_frees_once_the_stop_is_drawn_or_the_next_step_comes(monkeypatch):
    """Started at once, the reaper's thread took the interpreter from the step that gave it its
    batch and from the face drawing the stop (4-8 ms a step at tick 1M of a 40k-node compile):
    it waits LANDED first, unless the next step hurries it."""
    from workbench.debugger import reaper
    monkeypatch.setattr(reaper, "LANDED", 60)
    class Checkpoints:   # what a batch holds: here, only the batch's list keeps it
        pass
    held = Checkpoints()
    gone = weakref.ref(held)
    garbage = [held]
    del held
    r = reaper.Reaper()
    r.free_later(garbage)
    assert garbage and gone() is not None   # not before the stop is drawn
    r.wait(hurry=True)   # the next step
    assert not garbage and gone() is None


@pytest.mark.parametrize("target", [TINY, f"{DEVRUN}/fusion_and_snapshot.py"])
def test_going_back_lets_go_of_each_replaced_runs_device_memory_at_once(monkeypatch, target):
    """A replaced run's runtime is in cycles of its own (its devices, streams, scheduler),
    which wait for a collection the debugger defers (frozen at each landing), and each device's
    memory is a reservation of its whole capacity (2 GiB): Run.discard lets go of it at once
    (World.discard), and so does a snapshot restore of the runtime it replaces, though the
    kernel tasks that ran kept views of it. Only the landing run's is held."""
    from npu_emu.driver import memory
    from npu_emu.snapshot import check
    reserved, real = [], memory.reserve

    def reserve(nbytes: int, what: str):
        buffer = real(nbytes, what)
        if what.startswith("device "):   # not a host buffer
            reserved.append(weakref.ref(buffer))
        return buffer
    for module in (memory, check):   # a device made, and one restored from a snapshot
        monkeypatch.setattr(module, "reserve", reserve)
    d = debugger(target)
    try:
        if target == TINY:
            d.step("event")
            stopped(d.run_to_tick(900))   # executing: the weights are in device memory
        else:
            d.cont()                      # to the end: past the restore
        for _ in range(3):
            stopped(d.reverse_step())
        held = [id(ref()) for ref in reserved if ref() is not None]
        assert held == [id(device.memory._buf) for device in d.run.world.runtime.devices.values()]
    finally:
        d.close()


@pytest.mark.parametrize("trace_hash", [False, True])
def test_going_back_frees_the_replaced_runs_world_and_device_memory(collector_off, trace_hash):
    """Past load the world holds the model's weights in device memory: a run's world, bus and
    gate in a cycle with it would outlive it (frozen garbage, one world per step back). With a
    trace hash the run observes its own world's bus too: another cycle to break."""
    d = debugger(TINY, trace_hash=trace_hash)
    try:
        d.step("event")
        stopped(d.run_to_tick(900))   # executing: weights loaded
        worlds = []
        for _ in range(3):
            worlds.append(weakref.ref(d.run.world))
            stopped(d.reverse_step())
        assert all(w() is None for w in worlds)
    finally:
        d.close()


def test_reverse_continue_frees_its_scans_and_the_replaced_run(collector_off):
    d = debugger(TINY, gap=20)
    try:
        _inside_compile(d)
        d.add_breakpoint(["pass", d.run.tracker.pass_name or d.run.tracker.last_pass[0]])
        stopped(d.reverse_continue())
        assert _garbage() < CLOSED_WORLD
    finally:
        d.close()


def test_the_replaced_run_is_discarded_only_once_its_worker_stopped():
    d = debugger(TINY, gap=20)
    try:
        _inside_compile(d)
        run = d.run
        stopped(d.reverse_step())
        assert run.finished and run.state is None   # its worker unwound, then the state went
        assert d.run.state is not None and d.run.state.graph is not None
    finally:
        d.close()


def test_repeated_reverse_steps_leave_almost_nothing_to_collect(collector_off):
    d = debugger(TINY, gap=20)
    try:
        _inside_compile(d)
        for _ in range(10):
            stopped(d.reverse_step())
        assert _garbage() < 10 * CLOSED_WORLD
    finally:
        d.close()


def test_going_back_keeps_the_collector_paused_when_the_run_it_closes_resumes_it(monkeypatch):
    # a forward run's worker pauses the collector itself, lifting the pause while parked; as
    # it unwinds (closed by reverse-continue, inside the face's pause) it resumes it
    d = debugger(TINY, gap=20)
    seen = []
    try:
        _inside_compile(d)
        d.add_breakpoint(["pass", d.run.tracker.pass_name or d.run.tracker.last_pass[0]])
        discard = type(d.run).discard

        def checked(run):
            discard(run)
            seen.append(gc.isenabled())
        monkeypatch.setattr(type(d.run), "discard", checked)
        stopped(d.reverse_continue())
        assert seen and not any(seen) and gc.isenabled()
    finally:
        d.close()


def test_each_landing_is_the_forward_runs_state():
    d = debugger(TINY, trace_hash=True, gap=20)
    try:
        d.step("event")
        forward = {}
        for _ in range(40):
            s = stopped(d.step("event", 7))
            forward[s.tick] = (d.run.trace_hash(), graph_text(d))
        for tick in sorted(forward, reverse=True)[1:]:   # each step back discards the last
            stopped(d.reverse_step("event", d.tick - tick))
            assert d.tick == tick and (d.run.trace_hash(), graph_text(d)) == forward[tick]
    finally:
        d.close()


@pytest.mark.parametrize("leave", ["restart", "goto_before_first_checkpoint"])
def test_a_line_left_frees_its_graph_although_a_checkpoint_froze_it(leave):
    """A checkpoint freezes what is alive out of the collector's scans (collector.py): a line
    the debugger leaves (restarted, or gone back to before its first checkpoint) has its
    graph's cycles broken, so it is freed all the same."""
    d = debugger(TINY, gap=20)
    try:
        d.step("event")
        stopped(d.run_to_tick(300))
        assert len(d.checkpoints) > 0
        old = weakref.ref(d.state.graph)
        if leave == "restart":
            d.restart()
            stopped(d.run_to_tick(300))
        else:
            stopped(d.goto(d.checkpoints.points()[0].tick - 1))
        gc.collect()
        assert old() is None
    finally:
        d.close()


def test_going_back_in_a_program_with_a_models_run_loop_ends_each_replaced_runs_loop():
    """run_loop.py queues runs on a model's Run loop, a thread of its own, and stops at a stream
    sync timeout before its session.finalize. Each run a reverse-step replaces is abandoned
    there: its loop's thread ends with it (the runtime's close), where it waited for a turn
    forever, holding that run's world and a device's 2 GiB reservation (three steps back made
    6 GiB of address space, and a fuzz worker capped at 8 ran out)."""
    import threading
    d = debugger("sample_models/devrun/run_loop.py")
    try:
        stopped(d.cont())   # the timeout fault, the loop started and idle
        worlds = []
        for _ in range(3):
            worlds.append(weakref.ref(d.run.world))
            stopped(d.reverse_step())
        loops = [t for t in threading.enumerate() if t.name.startswith("ge-model-")]
        assert len(loops) <= 1   # the current run's own, at most
        _garbage()   # a host program's objects are in cycles of their own
        assert all(w() is None for w in worlds)
    finally:
        d.close()
    for t in threading.enumerate():
        if t.name.startswith("ge-model-"):
            t.join(5)
            assert not t.is_alive(), t.name


def test_what_died_frozen_is_collected_by_the_reaper_when_no_step_comes_first(monkeypatch):
    """What is alive at a landing is frozen out of the collector's scans, and what dies frozen
    is collected every THAW_EVERY landings (collector.py): not inside the step the user waits
    for (at 40k nodes the scan is 1.3 s) but on the reaper's thread once the stop has been shown
    a while; a step that comes first puts it off to a later landing."""
    import threading
    from workbench.debugger import collector, reaper
    monkeypatch.setattr(collector, "THAW_EVERY", 2)
    monkeypatch.setattr(collector, "_freezes", 0)
    made = []
    collect = gc.collect

    def recorded(*args):
        made.append(threading.current_thread().name)
        return collect(*args)
    monkeypatch.setattr(gc, "collect", recorded)

    class Cycle:
        pass
    d = debugger(TINY, gap=20)
    try:
        _inside_compile(d)
        cycle = Cycle()
        cycle.me = cycle
        dies = weakref.ref(cycle)
        stopped(d.reverse_step())   # landing 1 freezes it alive
        del cycle   # dead, and frozen: no scan sees it
        monkeypatch.setattr(reaper, "IDLE_BEFORE_COLLECTING", 60)
        stopped(d.reverse_step())   # landing 2: a collection is due, after a minute's idling
        stopped(d.reverse_step())   # came first: put off
        assert made == [] and dies() is not None
        monkeypatch.setattr(reaper, "IDLE_BEFORE_COLLECTING", 0)
        stopped(d.reverse_step())
        d.reaper.wait()
        assert made == ["gewb-reaper"] and dies() is None
    finally:
        d.close()
