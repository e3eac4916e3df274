"""Going back frees the run it replaces at once (Run.discard breaks its graphs' cycles, so
reference counting frees them), and what the landing run holds is frozen out of the collector's
scans without frozen garbage piling up (workbench/debugger/collector.py)."""
import gc
import weakref

import pytest

from debugger_testing import TINY, debugger, stopped
from ge_core.graph import dump_graph
from workbench.debugger import collector


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


def test_reverse_step_frees_the_replaced_runs_graphs_without_the_collector(collector_off):
    d = debugger(TINY, gap=20)
    try:
        _inside_compile(d)
        graphs = [weakref.ref(g) for g in d.state.graphs()]
        old = weakref.ref(d.run.state)
        stopped(d.reverse_step())
        assert old() is None and all(g() is None for g in graphs)
        graphs = [weakref.ref(g) for g in d.state.graphs()]   # a re-run's own, in turn
        stopped(d.goto(250))
        assert all(g() is None for g in graphs) and d.tick == 250
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
        graphs = [weakref.ref(g) for g in d.state.graphs()]
        stopped(d.reverse_continue())
        assert all(g() is None for g in graphs)
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


def test_repeated_reverse_steps_leave_no_frozen_garbage_to_collect(monkeypatch):
    # What the process holds before the debugger (the earlier tests' objects in this worker,
    # ~350k after the app's tests) is frozen, as the app's start is (workbench/tui/startup.py):
    # left in the old generation, each freeze moved it uncounted, and how many tests ran in
    # this worker before decided whether the count check below held.
    gc.collect()
    gc.unfreeze()
    gc.freeze()
    before = gc.get_freeze_count()
    monkeypatch.setattr(collector, "_frozen", 0)
    d = debugger(TINY, gap=20)
    try:
        _inside_compile(d)
        stopped(d.reverse_step())
        frozen = gc.get_freeze_count()
        assert d.run.frozen > 500   # the landing run's graph and copy, out of the scans
        for _ in range(10):
            stopped(d.reverse_step())
            # the count never runs below what is frozen: the full collection comes early
            assert collector._frozen >= gc.get_freeze_count() - before
        # each step froze its run and freed the one before but for a closed world's own
        # cycles (~130 objects): without the discard, a run's ~650 a step
        assert gc.get_freeze_count() - frozen < 10 * 300
    finally:
        d.close()
        gc.unfreeze()


def test_going_back_keeps_the_collector_paused_when_the_run_it_closes_resumes_it(monkeypatch):
    # a forward run's worker pauses the collector itself, lifting the pause while parked; as
    # it unwinds (closed by reverse-continue, inside the face's pause) it resumes it
    d = debugger(TINY, gap=20)
    seen = []
    try:
        _inside_compile(d)
        d.add_breakpoint(["pass", d.run.tracker.pass_name or d.run.tracker.last_pass[0]])
        real = collector.Reexecution.keep

        def keep(pause, run):
            seen.append(gc.isenabled())
            real(pause, run)
        monkeypatch.setattr(collector.Reexecution, "keep", keep)
        discard = type(d.run).discard

        def checked(run):
            discard(run)
            seen.append(gc.isenabled())
        monkeypatch.setattr(type(d.run), "discard", checked)
        stopped(d.reverse_continue())
        assert seen and not any(seen) and gc.isenabled()
    finally:
        d.close()


@pytest.mark.parametrize("slack", [collector.FROZEN_SLACK, -10**9])
def test_each_landing_is_the_forward_runs_state_however_often_the_frozen_are_collected(
        monkeypatch, slack):
    # -10**9: every landing thaws and collects what died frozen before freezing its run
    monkeypatch.setattr(collector, "FROZEN_SLACK", slack)
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
