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
    """The fields (tick first) of the events of ``cls`` built from now on."""
    built = []
    made = cls.__init__

    def counted(self, *args):
        built.append(args)
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


def test_a_node_visit_is_built_only_to_park_on_or_for_a_breakpoint_on_its_pass(monkeypatch):
    """The tracker's check of a visit, which keeps the history's and the step's units too,
    reads its fields (StopTable: the gate is handed them), so a visit is built only where the
    step stops on one. A breakpoint on a node pass tells from the fields whether it may act
    (its key: the pass's name), so only that pass's visits are built for it, where every
    visit was before; both stop where a run that builds them all stops, for the same
    reasons."""
    from ge_core.passes.events import NodeVisited
    built = counting(monkeypatch, NodeVisited)

    def parked_on_visits(outcomes: list) -> set[int]:
        return {o.tick for o in outcomes if isinstance(o, Stopped) and "NodeVisited" in o.event}

    def stops(trace_hash: bool) -> tuple[list, int, int, set]:
        d = debugger(TINY, trace_hash=trace_hash)
        try:
            outcomes = [o for _ in range(12) for o in d.step("pass")]
            parked, visits = len(parked_on_visits(outcomes)), len(built)
            d.add_breakpoint(["pass", "ConstantFoldingPass"])
            more = d.step("pass", 40) + d.cont() + d.cont()
            passes = {args[1] for args in built[visits:]
                      if args[0] not in parked_on_visits(more)}
            seen = [(o.tick, o.where, [r.text for r in o.reasons]) if isinstance(o, Stopped)
                    else repr(o) for o in outcomes + more]
            return seen, parked, visits, passes
        finally:
            d.close()
    alone, parked, visits, passes = stops(False)
    assert parked and visits == parked   # built to park on, and no other
    assert passes == {"ConstantFoldingPass"}   # built for the breakpoint: its pass's alone
    assert any("breakpoint" in str(o) for o in alone)
    built.clear()
    assert stops(True)[0] == alone


def test_a_breakpoints_reason_comes_before_a_steps_on_a_visit_it_is_checked_on_fields():
    """On a visit both a step's count and a breakpoint stop on, the reasons come in the
    predicate's order (the checks', then the units'), whether the visit is checked on its
    fields or built."""
    from ge_core.passes.events import NodeVisited
    from workbench.debugger.breakpoints import parse_breakpoint
    from workbench.debugger.listen import install
    from workbench.debugger.outcomes import StopReason
    from workbench.debugger.stop_table import StopTable, UnitCount
    from workbench.debugger.tracker import Tracker

    def reasons(on_fields: bool) -> list[str]:
        tracker = Tracker()
        table = StopTable(tracker)
        table.add_all(tracker.checks(), tracker.on_fields())
        table.add_unit_count("NodeVisited", None, UnitCount(1, StopReason("step", "a step")))
        bp = parse_breakpoint(1, ["pass", "ConstantFoldingPass"])
        install(bp.entries(lambda b, e, r: r.append(StopReason("breakpoint", "bp 1", 1))),
                table, tracker)
        fields = ("ConstantFoldingPass", "g", "n1", "Add")
        if on_fields:
            receiver = table.hears()(NodeVisited)
            assert callable(receiver)   # the visit is not built for the breakpoint's sake
            assert receiver(7, *fields)
        else:
            assert table.predicate()(NodeVisited(7, *fields))
        return [r.text for r in table.reasons]
    assert reasons(True) == reasons(False) == ["bp 1", "a step"]
