"""Reverse stepping is re-execution: it must land on exactly the state a forward run had at
that tick (same trace hash, same graph), from the start or from a checkpoint."""
import signal
import threading
import time

import pytest

from debugger_testing import (DEVRUN, ROOT, TINY, debugger, finished, stopped,
                              synthetic_target)
from ge_core.graph import dump_graph
from workbench.debugger.engine import Debugger
from workbench.debugger.outcomes import Error, Stopped


def graph_text(d):
    return "".join(dump_graph(g) for g in d.state.graphs())


def test_reverse_step_lands_on_the_forward_state(tmp_path):
    d = debugger(TINY, trace_hash=True, gap=20)
    try:
        forward = {}
        for _ in range(30):
            s = stopped(d.step("stage" if len(forward) < 3 else "event", 1))
            forward[s.tick] = (d.run.trace_hash(), graph_text(d), s)
        stopped(d.run_to_tick(480))
        assert len(d.checkpoints) >= 3   # so some of the landings below restore one
        d.granularity = "event"
        resumed = set()
        for tick in sorted(forward, reverse=True)[:12]:
            s = stopped(d.goto(tick))
            resumed.add(d.run.start_tick)
            digest, text, was = forward[tick]
            assert (d.run.trace_hash(), graph_text(d)) == (digest, text)
            assert (s.tick, s.event, s.where) == (was.tick, was.event, was.where)
        assert len(resumed - {0}) >= 1
        stopped(d.goto(max(forward)))
        s = stopped(d.reverse_step())
        assert s.tick == max(forward) - 1 and d.run.trace_hash() == forward[s.tick][0]
    finally:
        d.close()


def test_reverse_step_by_unit_and_reverse_continue():
    d = debugger(TINY, trace_hash=True)
    try:
        d.add_breakpoint(["pass", "ConstantFoldingPass"])
        first = stopped(d.cont())
        second = stopped(d.cont())
        passes = [stopped(d.step("pass")) for _ in range(2)]
        back = stopped(d.reverse_step())
        assert (back.tick, back.event) == (passes[0].tick, passes[0].event)
        assert back.reasons[0].text == "reverse-step pass"
        again = stopped(d.reverse_continue())
        assert (again.tick, again.event) == (second.tick, second.event)
        assert again.reasons[0].text == ("reverse-continue: breakpoint 1 "
                                         "(pass ConstantFoldingPass)")
        assert stopped(d.reverse_continue()).tick == first.tick
        (err,) = d.reverse_continue()
        assert isinstance(err, Error) and "no breakpoint hit before tick" in err.message
    finally:
        d.close()


def test_reverse_continue_looks_back_one_checkpoint_stretch_at_a_time():
    """A breakpoint the history keeps no units of (`wait`, `fault`, `model` ...): a hit several
    checkpoints back is found (each stretch between checkpoints is re-run, newest first) and
    lands on the forward run's state."""
    d = debugger(TINY, trace_hash=True, gap=20)
    try:
        d.add_breakpoint(["pass", "ConstantFoldingPass"])
        hit = stopped(d.cont())
        digest = d.run.trace_hash()
        d.delete(1)
        stopped(d.run_to_tick(hit.tick + 400))
        assert len([t for t in d.checkpoints._ticks if t > hit.tick]) >= 3
        d.add_breakpoint(["pass", "ConstantFoldingPass"])
        d._recorded_as_units = lambda: None   # as for a breakpoint on unrecorded events
        starts = []
        scan = d._scan_hits
        d._scan_hits = lambda start, last: starts.append(start) or scan(start, last)
        back = stopped(d.reverse_continue())
        assert (back.tick, back.event, d.run.trace_hash()) == (hit.tick, hit.event, digest)
        assert len(starts) >= 2 and starts[0] is not None   # from the newest checkpoint back
        assert [s.tick for s in starts if s is not None] == sorted(
            (s.tick for s in starts if s is not None), reverse=True)
    finally:
        d.close()


def test_reverse_continue_to_a_pass_re_runs_only_stretches_that_end_on_a_pass():
    """A pass breakpoint hears only pass units, which the history holds: going back re-runs
    only from the checkpoint before each pass unit to it, newest first, skipping stretches with
    none, and parks there when it is the hit (the scan is the landing: no second re-run). A
    condition that holds only earlier makes it look further back, to the same state a forward
    run had."""
    d = debugger(TINY, trace_hash=True, gap=20)
    try:
        d.add_breakpoint(["pass", "ConstantFoldingPass"])
        first = stopped(d.cont())
        first_hash = d.run.trace_hash()
        hit = stopped(d.cont())
        digest = d.run.trace_hash()
        d.delete(1)
        end = finished(d.cont()).tick
        stopped(d.goto(end - 40))
        d.add_breakpoint(["pass", "ConstantFoldingPass"])
        scans, gotos = [], []
        scan, goto = d._scan_hits, d.goto
        d._scan_hits = lambda start, last: scans.append((start, last)) or scan(start, last)
        d.goto = lambda *a: gotos.append(a) or goto(*a)
        stretches = [t for t in d.checkpoints._ticks if t > hit.tick]   # the old way's scans
        back = stopped(d.reverse_continue())
        assert (back.tick, back.event, d.run.trace_hash()) == (hit.tick, hit.event, digest)
        assert back.reasons[0].text == "reverse-continue: breakpoint 2 (pass ConstantFoldingPass)"
        assert all(last in d.history.ticks["pass"] for _, last in scans)
        assert scans[-1][0].tick == d.checkpoints.before(hit.tick).tick
        assert len(scans) < len(stretches) + 1
        # a later pass's unit in the hit's stretch: the scan went past the hit, goto lands
        assert bool(gotos) == (scans[-1][1] != hit.tick)
        stopped(d.goto(hit.tick + 1))   # the hit is the last pass unit: one scan, parked on it
        scans.clear(), gotos.clear()
        back = stopped(d.reverse_continue())
        assert (back.tick, back.event, d.run.trace_hash()) == (hit.tick, hit.event, digest)
        assert back.where == hit.where and len(scans) == 1 and not gotos
        d.delete(2)
        d.add_breakpoint(["pass", "ConstantFoldingPass", "if", f"tick <= {first.tick}"])
        back = stopped(d.reverse_continue())
        assert (back.tick, back.event, d.run.trace_hash()) == (first.tick, first.event,
                                                               first_hash)
    finally:
        d.close()


def test_goto_from_the_end_and_forward_again():
    d = debugger(TINY, trace_hash=True)
    try:
        end = finished(d.cont())
        final = d.run.trace_hash()
        s = stopped(d.goto(end.tick - 10))
        assert s.tick == end.tick - 10
        assert finished(d.cont()).tick == end.tick and d.run.trace_hash() == final
        assert "not started" in d.goto(0)[0].text
        assert isinstance(d.goto(-1)[0], Error)
    finally:
        d.close()


def test_a_run_resumed_from_any_checkpoint_ends_on_the_forward_runs_trace_hash():
    """Checkpoints every ~20 ticks: from each of a spread of ticks, deep ones included, a
    re-run resumed from the newest checkpoint before it runs on to the same end."""
    d = debugger(TINY, trace_hash=True, gap=20)
    try:
        end = finished(d.cont())
        final = d.run.trace_hash()
        starts = set()
        for tick in range(end.tick // 4, end.tick, end.tick // 4):
            stopped(d.goto(tick))
            starts.add(d.run.start_tick)
            assert finished(d.cont()).tick == end.tick and d.run.trace_hash() == final
        assert len(starts - {0}) >= 2
    finally:
        d.close()


def test_reverse_on_a_host_program_reexecutes_from_the_start():
    d = debugger(f"{DEVRUN}/label_loop.py", trace_hash=True)
    try:
        states = []
        for _ in range(20):
            s = stopped(d.step("sqe"))
            states.append((s, d.run.trace_hash()))
        for s, digest in reversed(states[:-1]):
            back = stopped(d.reverse_step())
            assert (back.tick, back.event, d.run.trace_hash()) == (s.tick, s.event, digest)
    finally:
        d.close()


def test_watches_resync_after_going_back():
    d = debugger(TINY)
    try:
        w = d.add_watch(["node", "conv1", "attr", "engine"])
        placed = stopped(d.cont())
        assert w.value == "'AIcoreEngine'"
        stopped(d.goto(placed.tick - 1))
        assert w.value == "<unset>"
        again = stopped(d.cont())
        assert again.tick == placed.tick and again.reasons[0].new == "'AIcoreEngine'"
    finally:
        d.close()


def _when_running(d, action):
    """Do ``action`` from another thread once the target is well into its run."""
    def wait_then_act():
        while d.run.tick < 200:
            time.sleep(0.001)
        action()
    return threading.Thread(target=wait_then_act)


def test_interrupt_parks_a_running_continue():
    d = debugger("light:resnet50")
    try:
        _when_running(d, d.interrupt).start()
        s = stopped(d.cont())
        assert s.reasons[0].text == "interrupted" and 200 <= s.tick
        assert isinstance(d.step("event")[-1], Stopped)
        again = stopped(d.goto(s.tick))   # the interrupted event was seen like any other
        assert (again.event, again.where) == (s.event, s.where)
    finally:
        d.close()


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs pthread_kill")
def test_ctrl_c_during_continue_returns_to_the_prompt_with_the_target_alive():
    main = threading.main_thread().ident
    if threading.get_ident() != main:
        pytest.skip("signals reach only the main thread")
    d = debugger("light:resnet50")
    in_continue = [True]

    def ctrl_c(signum, frame):   # only inside cont(): a late one must not end the session
        if in_continue[0]:
            raise KeyboardInterrupt
    previous = signal.signal(signal.SIGINT, ctrl_c)
    try:
        _when_running(d, lambda: signal.pthread_kill(main, signal.SIGINT)).start()
        s = stopped(d.cont())
        in_continue[0] = False
        assert s.reasons[0].text == "interrupted"
        nxt = stopped(d.step("event"))
        assert nxt.tick == s.tick + 1
    finally:
        in_continue[0] = False
        signal.signal(signal.SIGINT, previous)
        d.close()


def test_reverse_step_at_tick_10k_on_resnet50_resumes_from_a_checkpoint():
    d = debugger("light:resnet50", trace_hash=True)
    try:
        d.step("event")
        at = stopped(d.run_to_tick(10_000))
        digest = d.run.trace_hash()
        stopped(d.step("event", 3))
        back = stopped(d.goto(10_000))
        assert d.run.start_tick > 5_000   # from a checkpoint, not the start
        assert (back.event, back.where, d.run.trace_hash()) == (at.event, at.where, digest)
        assert stopped(d.reverse_step()).tick == 9_999
    finally:
        d.close()


@pytest.mark.parametrize("unit", ["stage", "pass", "node", "task", "sqe", "event"])
def test_reverse_step_takes_every_unit_step_takes(unit):
    """`reverse-step stage` was refused while `step stage` worked (issue 15)."""
    from workbench.debugger.granularity import GRANULARITIES
    assert unit in GRANULARITIES
    d = debugger(TINY)
    try:
        first = stopped(d.step(unit)).tick
        second = stopped(d.step(unit, 2)).tick
        d.granularity = "event"   # reverse-step UNIT makes it the stepping unit again
        back = stopped(d.reverse_step(unit, 2))
        assert back.tick == first < second and d.granularity == unit
        assert back.reasons[0].text == f"reverse-step {unit}"
        assert d.reverse_step("frame") == [Error("no stepping unit 'frame' (stage, pass, node, "
                                                 "task, sqe, line, event)")]
    finally:
        d.close()


GAP = 4000   # ticks between checkpoints: a few inside each stage of the 800-node graph


@pytest.mark.parametrize("phase_stage", [("compile", "Partition"), ("build", "AssignMemory")])
def test_reverse_step_deep_in_compile_lands_on_a_fresh_runs_event(tmp_path, phase_stage):
    """Going back from a tick inside a stage (no resumable position there) re-runs from the
    newest checkpoint before it and parks on exactly the event, place, graph and trace hash a
    fresh run stopped at that tick has; the store keeps at most its limit of checkpoints, and
    those after the one it went back to go (the journal rewound past their marks)."""
    from workbench.debugger.engine import Debugger
    target = synthetic_target(tmp_path, 800)
    fresh = Debugger(target, trace_hash=True)
    try:
        tracker = fresh.run.tracker
        while (tracker.phase, tracker.stage) != phase_stage:   # into the stage, then deeper
            stopped(fresh.step("stage"))
        was = stopped(fresh.step("event", 300))
        assert (tracker.phase, tracker.stage) == phase_stage and fresh.run.start_tick == 0
        deep, expect = was.tick, (fresh.run.trace_hash(), graph_text(fresh))
    finally:
        fresh.close()
    # spaced by ticks alone: by CPU time (the default), a re-run on a loaded machine may make
    # the checkpoint it replaces a few ticks off the line's, and the kept ticks differ
    d = Debugger(target, trace_hash=True, checkpoint_gap=GAP)
    d.checkpoints.limit = 3
    try:
        stopped(d.run_to_tick(deep + 2))
        assert 0 < len(d.checkpoints) <= 3
        kept = [c.tick for c in d.checkpoints.points()]
        stopped(d.reverse_step("event"))
        back = stopped(d.reverse_step("event"))
        assert 0 < d.run.start_tick < deep   # from a checkpoint inside compile, not the start
        held = [c.tick for c in d.checkpoints.points()]
        assert held == [t for t in kept if t <= d.run.start_tick] and held[-1] < back.tick
        assert (back.tick, back.event, back.where) == (was.tick, was.event, was.where)
        assert (d.run.trace_hash(), graph_text(d)) == expect
        assert d.checkpoints.mib() > 0
        stopped(d.goto(kept[0] - 1))   # before them all: from the start, a line of its own
        assert d.run.start_tick == 0 and len(d.checkpoints) <= 3
        stopped(d.run_to_tick(deep))
        assert (d.run.trace_hash(), graph_text(d)) == expect
    finally:
        d.close()


def test_info_checkpoints_says_where_going_back_resumes_and_the_memory_held():
    from workbench.commands.session import DebugSession
    from workbench.debugger.outcomes import Printed, TableOutcome
    session = DebugSession(base_dir=ROOT)
    try:
        session.execute(f"target {TINY}")
        (none,) = session.execute("info checkpoints")
        assert isinstance(none, Printed) and "re-runs from the start" in none.text
        session.execute("continue")
        (table,) = session.execute("info checkpoints")
        store = session.debugger_or_fail().checkpoints
        assert isinstance(table, TableOutcome) and table.headers == ("tick", "resumes at",
                                                                      "nodes")
        assert [row[0] for row in table.rows] == [str(c.tick) for c in store.points()]
        assert all(row[1].startswith(("parse, inside ", "compile, after ", "compile, inside ",
                                      "start of "))
                   for row in table.rows)
        assert f"{store.mib():.1f} MiB" in table.title and store.mib() > 0
    finally:
        session.close()


def test_info_checkpoints_gives_each_ones_nodes_as_they_were_then():
    """Not the live graph's, which the checkpoints share (checkpoint.py): after Partition the
    root graph is empty, after the merge full again."""
    from workbench.commands.inspecting import INFO
    d = debugger(TINY, gap=20)
    try:
        finished(d.cont())
        rows = INFO["checkpoints"](d).rows
        assert len(rows) >= 5 and len({row[2] for row in rows}) >= 3
        for tick, _, nodes in rows:   # the graphs as a run parked at that tick has them
            stopped(d.goto(int(tick)))
            assert int(nodes) == sum(map(len, d.state.graphs())), tick
    finally:
        d.close()


def test_the_checkpoints_memory_is_capped_in_mib_and_going_back_still_lands_exactly():
    """A store over its MiB budget thins its copies (never the newest), as it makes each, until
    their estimated memory fits; the estimate is the first copies' measured bytes an object;
    re-runs from the copies kept still land on the forward run's trace hash and graph."""
    free = debugger(TINY, trace_hash=True, gap=20)
    try:
        finished(free.cont())
        store = free.checkpoints
        unbounded = len(store)
        per_copy = store.estimated_mib() / unbounded
        assert unbounded >= 4 and 0.5 < store.estimated_mib() / store.mib() < 2
    finally:
        free.close()
    d = debugger(TINY, trace_hash=True, gap=20)
    store = d.checkpoints
    store.limit_mib = 2.5 * per_copy
    over = []   # (held, estimate) after an offer that left more than fits
    offer = store.offer

    def checked_offer(run, position):   # the cap holds as each copy is made (not in between:
        newest = store.points()[-1].tick if len(store) else None   # the journal grows on)
        offer(run, position)
        copied = len(store) and store.points()[-1].tick != newest
        if copied and len(store) > 1 and store.estimated_mib() > store.limit_mib:
            over.append((len(store), store.estimated_mib()))
    store.offer = checked_offer
    try:
        forward = {}
        while True:
            outcome = d.step("event", 37)[-1]
            if not isinstance(outcome, Stopped):
                break
            forward[outcome.tick] = (d.run.trace_hash(), graph_text(d))
            newest = store.points()[-1].tick if len(store) else None
        assert not over and 1 <= len(store) < unbounded and store.points()[-1].tick == newest
        for tick in sorted(forward)[1::3]:
            stopped(d.goto(tick))
            assert (d.run.trace_hash(), graph_text(d)) == forward[tick]
    finally:
        d.close()


def test_the_measured_memory_counts_the_constants_a_fold_removed(tmp_path):
    """A fold removes the constants it read: the journal alone keeps them (its logged removal
    holds the node, to put it back), and the memory measured counts their values though a
    node is a graph object the run shares otherwise. ``ab``, folded from ``a * b``, is folded
    away into ``abc`` in turn: its value is in no file."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from workbench.debugger.targets import open_target
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((256, 1024)).astype(np.float32) for _ in range(3))
    graph = helper.make_graph(
        [helper.make_node("Mul", ["a", "b"], ["ab"]), helper.make_node("Mul", ["ab", "c"], ["abc"]),
         helper.make_node("Add", ["x", "abc"], ["y"])],
        "fold", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 1024])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [256, 1024])],
        [numpy_helper.from_array(v, name) for v, name in ((a, "a"), (b, "b"), (c, "c"))])
    path = tmp_path / "fold.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    d = Debugger(open_target(str(path), tmp_path), checkpoint_gap=5)
    try:
        finished(d.cont())
        assert d.state.graph.find_node("ab") is None   # folded, and folded away again
        # the feed (the checkpoints' copies of the run hold it) and a * b, the journal's alone:
        # 1.27 MiB read when a removed node's desc went uncounted. abc, a state of its desc the
        # journal saved, is the run's too: its built model's weights are that array (a, b and
        # c are views of the model file's bytes, which no measure walks into)
        assert d.checkpoints.mib() * 2**20 >= 2 * a.nbytes
    finally:
        d.close()


def test_the_memory_estimate_counts_the_weights_only_the_journal_keeps(tmp_path):
    """ConvBatchnormFusionPass replaces a conv's weights: the old ones stay in the journal, to
    put back on a rewind, and the estimate the MiB cap reads counts them (it had counted the
    entries' containers only: 4 MiB of ResNet-50's 147), once however many marks saved them,
    and no more once the line is released."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from workbench.debugger.targets import open_target
    rng = np.random.default_rng(0)
    w = rng.standard_normal((256, 256, 3, 3)).astype(np.float32)
    bn = [numpy_helper.from_array(rng.random(256).astype(np.float32) + 0.5, name)
          for name in ("scale", "bias", "mean", "var")]
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["y"])],
        "conv_bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 256, 4, 4])],
        [numpy_helper.from_array(w, "w"), *bn])
    path = tmp_path / "conv_bn.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    d = Debugger(open_target(str(path), tmp_path), checkpoint_gap=20)
    store = d.checkpoints
    try:
        finished(d.cont())
        end = d.tick
        assert w.nbytes <= store.estimated_mib() * 2**20 < 2 * w.nbytes
        assert w.nbytes <= store.mib() * 2**20   # and measured
        # going back puts the old weights back in the graph
        held = {}
        for tick in range(end // 9, end, end // 9):
            stopped(d.goto(tick))
            held[tick] = store.held_mib() * 2**20
        assert min(held.values()) == 0 and max(held.values()) >= w.nbytes
        finished(d.cont())
        assert w.nbytes <= store.held_mib() * 2**20
        store.release()
        assert store.estimated_mib() == 0
    finally:
        d.close()


@pytest.mark.parametrize("model", [TINY, "sample_models/fold_and_infer.onnx",
                                   "sample_models/fusion_routes.onnx"])
def test_the_held_tensors_count_kept_entry_by_entry_is_a_count_from_scratch(model):
    """At each checkpoint, where the cap reads it (between two, it is the count as of the last:
    a desc may be written again in the epoch under way, unsaved), though asked between
    checkpoints too (info checkpoints) and though going back rewinds the journal."""
    from workbench.debugger.held_tensors import HeldTensors
    d = debugger(model, gap=20)
    store, agreed, offer = d.checkpoints, [], d.checkpoints.offer

    def offer_and_compare(run, position):
        offer(run, position)
        points = store.points()
        if points and points[-1].tick == run.tick:   # a checkpoint made here: a mark
            agreed.append((run.tick, store.held_mib(),
                           HeldTensors().bytes(store.journal) / 2**20))
    store.offer = offer_and_compare
    try:
        while isinstance(d.step("event", 3)[-1], Stopped):
            store.held_mib()
        end = d.tick
        for tick in range(end // 7, end, end // 7):
            stopped(d.goto(tick))
            store.held_mib()
        finished(d.cont())
        assert len(agreed) > 10 and any(a for _, a, _ in agreed)
        assert [(t, a) for t, a, _ in agreed] == [(t, b) for t, _, b in agreed]
    finally:
        d.close()


def test_a_rewind_keeps_counting_a_tensor_older_entries_hold():
    """A fold whose value is its input's array (an Identity of a Const) makes a Const sharing
    the removed one's tensor. Rewound past that Const's birth, the tensor is the journal's
    alone again, by the removed Const's entry from before the mark: still counted."""
    import numpy as np

    from ge_core.graph import ComputeGraph
    from ge_core.graph.journal import Journal, journaling
    from ge_core.passes.pass_utils import make_const
    from workbench.debugger.held_tensors import HeldTensors
    graph, journal, held = ComputeGraph("g"), Journal(), HeldTensors()
    weights = np.ones(1000, np.float32)
    with journaling(journal):
        journal.mark()
        graph.remove_node(make_const(graph, "x", weights))
        mark = journal.mark()   # a count reads the epochs that are over
        assert held.bytes(journal) == weights.nbytes
        make_const(graph, "y", weights)   # the same array, in the graph again
        journal.mark()
        assert held.bytes(journal) == 0
        journal.rewind(mark)
        held.rewound(mark)
        assert held.bytes(journal) == weights.nbytes == HeldTensors().bytes(journal)


def test_a_rewind_lets_go_of_the_descs_its_dropped_entries_alone_noted():
    """A tensor many descs hold (Partition's copies of one constant) is noted with each; the
    descs of entries a rewind dropped go with them, so a line re-run after each step back
    holds no more of them (a list of them all grew by a Partition's copies at every re-run)."""
    import numpy as np

    from ge_core.graph import ComputeGraph
    from ge_core.graph.journal import Journal, journaling
    from ge_core.passes.pass_utils import make_const
    from workbench.debugger.held_tensors import HeldTensors
    graph, journal, held = ComputeGraph("g"), Journal(), HeldTensors()
    weights = np.ones(1000, np.float32)
    with journaling(journal):
        journal.mark()
        graph.remove_node(make_const(graph, "x", weights))   # noted before the mark below
        mark = journal.mark()
        for _ in range(3):   # a re-run of the same stretch after each rewind
            for i in range(50):
                make_const(graph, f"c{i}", weights)
            journal.mark()
            held.bytes(journal)
            (note,) = held._notes.values()
            assert len(note.ops) == 51
            journal.rewind(mark)
            held.rewound(mark)
            assert held.bytes(journal) == weights.nbytes
