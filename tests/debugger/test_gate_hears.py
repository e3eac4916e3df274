"""A gate alone on the bus is handed only the classes of event its stop table's checks hear; the
others are counted but never built (TraceBus.hear_only). That must change nothing a user sees:
stepping by every unit, breaking, watching and going back stop where a run whose every event is
built (one with the trace hash's observer beside the gate) stops."""
from debugger_testing import TINY, debugger
from ge_core.graph.events import AnchorLinked
from workbench.debugger.outcomes import Stopped


def session(trace_hash: bool, built: list) -> tuple[list[tuple], int]:
    """The stops of a session, and how many AnchorLinked were built while it went forward by
    units (a step by ticks, or back to one, hears every event)."""
    d = debugger(TINY, trace_hash=trace_hash)
    outcomes = []
    try:
        for _ in range(4):
            outcomes += d.step("pass")
        outcomes += d.next() + d.step("node", 3) + d.next()
        d.add_breakpoint(["node", "type=Relu"])
        d.add_watch(["node", "conv1", "attr", "engine"])
        outcomes += d.cont() + d.cont() + d.finish() + d.step("stage") + d.step("task")
        forward = len(built)
        outcomes += d.step("event", 2) + d.reverse_step("node") + d.reverse_step("pass", 2)
        outcomes += d.reverse_continue() + d.step("pass") + d.cont()
    finally:
        d.close()
    return [(o.tick, o.event, o.where, [r.text for r in o.reasons]) if isinstance(o, Stopped)
            else repr(o) for o in outcomes], forward


def counting(monkeypatch, cls) -> list:
    """The ticks of the events of ``cls`` built from now on."""
    built = []
    made = cls.__init__

    def counted(self, *args):
        built.append(args[0])
        made(self, *args)
    monkeypatch.setattr(cls, "__init__", counted)
    return built


def test_a_gate_hearing_some_classes_stops_where_one_hearing_every_event_does(monkeypatch):
    built = counting(monkeypatch, AnchorLinked)
    alone, forward = session(False, built)
    assert forward == 0   # no check hears an edge being linked: none was built
    built.clear()
    beside, forward = session(True, built)
    assert forward > 0   # the hash's observer hears every event
    assert alone == beside and len([o for o in alone if isinstance(o, tuple)]) >= 15


def test_stepping_by_pass_builds_a_node_visit_only_to_park_on_it(monkeypatch):
    """The tracker's check of a visit, which keeps the history's and the step's units too,
    reads its fields (StopTable: the gate is handed them), so a visit is built only where the
    step stops on one; a check with no such form (a breakpoint on a node pass) has every visit
    built again, and both stop where a run that builds them all stops."""
    from ge_core.passes.events import NodeVisited
    built = counting(monkeypatch, NodeVisited)

    def stops(trace_hash: bool) -> tuple[list, int]:
        d = debugger(TINY, trace_hash=trace_hash)
        try:
            outcomes = [o for _ in range(12) for o in d.step("pass")]
            parked = [o.tick for o in outcomes if "NodeVisited" in o.event]
            visits, mark = len(built), len(built)
            d.add_breakpoint(["pass", "ConstantFoldingPass"])
            outcomes += d.step("pass", 40)
            return [(o.tick, o.where) for o in outcomes], parked, visits, len(built) - mark
        finally:
            d.close()
    alone, parked, visits, with_breakpoint = stops(False)
    assert parked and visits == len(parked)   # built to park on, and no other
    assert with_breakpoint > 40
    built.clear()
    assert stops(True)[0] == alone
