"""Where the target is: phase > stage > pass > inner node pass > node, kept up to date from the
structural events only (a few thousand in a ResNet compile), and the device part (model >
rt_stream > SQE) read from the event the target is parked on."""
from __future__ import annotations

import copy
from typing import Callable

from ge_core.events import TaskDistributed
from ge_core.executor.events import NodeExecuted
from ge_core.passes.events import NodeVisited, PassBegin, PassEnd
from ge_core.stream_label import logical_stream_name
from ge_core.stream_label import stream_label as pair_label
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.base.trace import TraceEvent
from workbench.debugger.granularity import inner_pass_began
from workbench.debugger.stop_table import Check, FieldsStops, Units, note_unit
from workbench.debugger.stream_names import LOGICAL, RT, event_fields, stream_label
from workbench.debugger.targets.host_lines import HostLine
from workbench.debugger.targets.program import PhaseBegin, PhaseEnd


class Tracker:
    # slots: the node-visit fields are stored at every visit (85k a pass group at 20k nodes)
    __slots__ = ("phase", "stage", "pass_name", "pass_graph", "inner_pass", "inner_seen",
                 "inner_began", "node", "node_type", "node_graph", "node_began", "pass_begin",
                 "last_pass", "bound", "host_depth")

    def __init__(self) -> None:
        self.phase = ""
        self.stage = ""
        self.pass_name = ""
        self.pass_graph = ""
        self.inner_pass = ""       # a node pass run inside pass_name (ConstantFoldingPass ...)
        self.inner_seen: set[str] = set()   # membership only: no order shows
        self.inner_began = False   # the last NodeVisited was its node pass's first visit
        self.node = ""             # the node being visited or executed
        self.node_type = ""
        self.node_graph = ""
        self.node_began = False    # the last NodeVisited moved on to another node
        self.pass_begin = 0        # the tick of the open pass's PassBegin
        self.last_pass: tuple[str, str, int, int] | None = None   # pass, graph, begin, end tick
        self.bound: dict[int, int] = {}   # rt stream -> GE's logical stream, as tasks go onto it
        self.host_depth = 0        # a host program's frames at its last line (HostLine)

    def copy(self) -> "Tracker":
        twin = copy.copy(self)
        twin.inner_seen = set(self.inner_seen)
        twin.bound = dict(self.bound)
        return twin

    def checks(self) -> dict[str, Check]:
        return {PhaseBegin.__name__: self._phase, PhaseEnd.__name__: self._phase,
                StageBegin.__name__: self._stage, StageEnd.__name__: self._stage_end,
                PassBegin.__name__: self._pass, PassEnd.__name__: self._pass_end,
                NodeVisited.__name__: self._visit, NodeExecuted.__name__: self._executed,
                TaskDistributed.__name__: self._distributed, HostLine.__name__: self._host_line}

    def on_fields(self) -> dict[str, FieldsStops]:
        """The checks that have a form on an event's fields keeping its units (StopTable.add)."""
        return {NodeVisited.__name__: self._visits}

    def _phase(self, e: PhaseBegin | PhaseEnd, reasons: list) -> None:
        self.phase = e.phase
        self.stage = ""
        self._pass_end(e, reasons)

    def _stage(self, e: StageBegin, reasons: list) -> None:
        self.stage = e.stage
        self._pass_end(e, reasons)

    def _stage_end(self, e: StageEnd, reasons: list) -> None:
        # What runs after a stage is outside it (a host program's execution after a load's
        # DoTaskSink); `where` still names the stage at its own StageEnd.
        self._pass_end(e, reasons)
        self.stage = ""

    def _pass(self, e: PassBegin, reasons: list) -> None:
        self._pass_end(e, reasons)
        self.pass_name, self.pass_graph, self.pass_begin = e.pass_name, e.graph, e.tick

    def _pass_end(self, e: TraceEvent, reasons: list) -> None:
        if isinstance(e, PassEnd):
            self.last_pass = (e.pass_name, e.graph, self.pass_begin, e.tick)
        else:
            self.pass_name = self.pass_graph = ""
        self.inner_pass = self.node = self.node_type = self.node_graph = ""
        self.inner_seen = set()

    def _visit(self, e: NodeVisited, reasons: list) -> None:
        self._visited(e.pass_name, e.graph, e.node, e.op_type)

    def _visited(self, name: str, graph: str, node: str, op_type: str) -> bool:
        """Whether the visit began a node pass (inner_pass_began)."""
        # Once per node pass of every node: the set grown only when new.
        seen = self.inner_seen
        self.inner_began = began = name not in seen
        if began:
            seen.add(name)
        self.node_began = node != self.node or graph != self.node_graph
        self.inner_pass = name if name != self.pass_name else ""
        self.node, self.node_type, self.node_graph = node, op_type, graph
        return began

    def _visits(self, units: Units, reasons: list) -> Callable[..., bool] | None:
        """The check of a node visit on its fields, keeping its units: those of every visit and
        those a node pass's first visit is (every granularity's); None for any other."""
        by_test = {test: (lists, counts) for test, lists, counts in units}   # a test appears once
        if not by_test.keys() <= {None, inner_pass_began}:
            return None
        every_lists, every_counts = by_test.get(None, ((), ()))
        began_lists, began_counts = by_test.get(inner_pass_began, ((), ()))
        visited = self._visited

        def stops(tick: int, name: str, graph: str, node: str, op_type: str) -> bool:
            if visited(name, graph, node, op_type):
                note_unit(tick, began_lists, began_counts, reasons)
            note_unit(tick, every_lists, every_counts, reasons)
            return True if reasons else False
        return stops

    def _executed(self, e: NodeExecuted, reasons: list) -> None:
        self.node, self.node_type, self.node_graph = e.node, e.op_type, e.graph

    def _host_line(self, e: HostLine, reasons: list) -> None:
        self.host_depth = e.depth

    def _distributed(self, e: TraceEvent, reasons: list) -> None:
        # DavinciModel bound the rt stream to this logical stream (BindModelStream)
        self.bound[e.rt_stream_id] = e.stream_id

    def where(self, event: TraceEvent | None, source: str = "") -> str:
        """``source``: a host program's line behind the event (host_source.host_site)."""
        stage = self.stage or (event.stage if isinstance(event, StageEnd) else "")
        parts = [p for p in (self.phase, source, stage, self.pass_name, self.inner_pass) if p]
        if self.node:
            parts.append(f"%{self.node} ({self.node_type})")
        parts += _device_where(event, self.bound)
        return " > ".join(parts) or "(not started)"


def _device_where(event: TraceEvent | None, bound: dict[int, int]) -> list[str]:
    """model > stream > SQE, from the event's task; else the stream the event names (a
    DistributeTask's logical_stream and the rt_stream bound to it: one stream, one name)."""
    task = getattr(event, "task", None)
    if task is not None and task.stream is not None:
        stream = task.stream
        model = [f"model {stream.model.id}"] if stream.model is not None else []
        return model + [f"stream {stream_label(stream.id, bound)}",
                        f"SQE {task.pos} {task}"]
    if event is None:
        return []
    ids = {name: value for name, value in event_fields(event)
           if name in (LOGICAL, RT) and isinstance(value, int) and value >= 0}
    if RT in ids:
        rt = ids[RT]
        return [f"stream {pair_label(rt, ids.get(LOGICAL, bound.get(rt)))}"]
    return [f"stream {logical_stream_name(ids[LOGICAL])}"] if LOGICAL in ids else []
