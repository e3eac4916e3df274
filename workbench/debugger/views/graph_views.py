"""The compiler side of the parked world: a node's IR line, the pass table, the IR diff of the
last pass, graph dumps. Functions of the debugger's state returning outcomes."""
from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Callable

import numpy as np

from ge_core.graph import ComputeGraph, GeTensor, Node, dump_graph, node_line, to_dot
from ge_core.graph.attr_names import OUTPUT_OFFSET
from ge_core.graph.dump import Detail
from ge_core.passes import not_ge
from workbench.debugger.outcomes import Error, Outcome, Printed, TableOutcome
from workbench.debugger.targets.program import RunState
from workbench.debugger.views import tensor_text
from workbench.debugger.views.compile_report import type_delta_text
from workbench.output_path import file_stem

if TYPE_CHECKING:
    from workbench.debugger.engine import Debugger


def node_names(state: RunState | None) -> list[str]:
    if state is None:
        return []
    return [n.name for g in state.graphs() for n in g.all_nodes()]


def no_such_node(state: RunState | None, name: str) -> Error:
    near = difflib.get_close_matches(name, node_names(state), n=3)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    return Error(f"no node {name!r} in the graph at this point{hint}")


def print_node(state: RunState | None, name: str) -> Outcome:
    node = state.find_node(name) if state is not None else None
    if node is None:
        return no_such_node(state, name)
    return Printed(f"{node.graph.name}: {node_line(node, Detail.NO_DATA)}", style="ir")


def passes(state: RunState | None) -> Outcome:
    """The optimisation stages' passes, then the build's (stream allocation and sync events),
    whose rows say what they count (events left after each InsertSyncNodesByLogicStream step)."""
    records = [*(state.pipeline.result.passes if state and state.pipeline else ()),
               *(state.build_passes if state else ())]
    if not records:
        return Printed("no pass has run yet")
    build = len(records) - len(state.build_passes)
    rows = tuple((str(i), r.stage, not_ge.shown(r.name, r.stage), r.graph,
                  "yes" if r.changed else "-", str(r.nodes_after),
                  " ".join(filter(None, [type_delta_text(r.type_delta), *(
                      f"{k} {n}" for k, n in (r.detail if i > build else ()))])))
                 for i, r in enumerate(records, 1))
    return TableOutcome("passes", ("#", "stage", "pass", "graph", "changed", "nodes",
                                   "node types"), rows)


def find_graph(state: RunState, name: str) -> ComputeGraph | None:
    for g in state.graphs():
        for member in [g, *g.subgraphs]:
            if member.name == name:
                return member
    return None


def diff(debugger: Debugger) -> Outcome:
    """The IR diff of the pass the target is in (so far), or else of the last one that ran."""
    t, now = debugger.run.tracker, debugger.tick
    if t.pass_name and (t.last_pass is None or t.last_pass[2] != t.pass_begin):
        name, graph, begin, end, label = t.pass_name, t.pass_graph, t.pass_begin, now, "so far"
    elif t.last_pass is not None:
        (name, graph, begin, end), label = t.last_pass, "ran"
    else:
        return Error("diff: no pass has run yet")
    from workbench.debugger.views.pass_tree import ir_diff
    return ir_diff(debugger, name, graph, begin, end, label)


def dump(state: RunState | None, save: Callable[[dict[str, str]], None], shown_dir: str,
         tick: int) -> Outcome:
    """The graph as text and dot, named like GE's dumps but by tick; ``save`` puts the files
    in the folder the user named (or, in a served tab, in the browser)."""
    if state is None or state.graph is None:
        return Error("dump: there is no graph yet")
    files: dict[str, str] = {}
    for g in state.graphs():
        stem = f"ge_tick_{tick:08d}_{file_stem(g.name)}"
        files[f"{stem}.txt"] = dump_graph(g, Detail.NO_DATA)
        files[f"{stem}.dot"] = to_dot(g)
    save(files)
    written = list(files)
    return Printed(f"dumped {len(written)} files to {shown_dir}: {', '.join(written[:4])}"
                   + (", ..." if len(written) > 4 else ""))


def graph_tensor(state: RunState | None, name: str) -> Outcome:
    """A tensor by node (its output 0), node:index or framework tensor name: the host
    executor's value, or a constant's."""
    if state is None or state.graph is None:
        return Error(f"print tensor {name}: there is no graph yet")
    node_name, colon, index = name.rpartition(":")
    if not (colon and index.isdecimal()):
        node_name, index = name, "0"
    node = state.find_node(node_name)
    if node is None:   # perhaps the framework's name of a tensor
        for g in state.graphs():
            for n in g.all_nodes():
                if name in n.op_desc.output_names:
                    node, index = n, str(n.op_desc.output_names.index(name))
                    break
    if node is None:
        return no_such_node(state, node_name)
    label = f"{node.name}:{index}"
    values = state.executor.values if state.executor is not None else {}
    if state.model is not None and node.type != "Const" and \
            node.op_desc.get_attr(OUTPUT_OFFSET) and label in values:
        return Printed(_device_tensor(state, node, int(index), values[label]), style="tensor")
    if label in values:
        return Printed(tensor_text.full(label, values[label], "host executor"), style="tensor")
    value = node.op_desc.get_attr("value") if node.type == "Const" else None
    if value is not None:
        data = value.data if isinstance(value, GeTensor) else value
        return Printed(tensor_text.full(label, data, "constant"), style="tensor")
    return Error(f"print tensor {name}: no value yet (the execute phase has not computed "
                 f"{label})")


def _device_tensor(state: RunState, node: Node, index: int, reference: np.ndarray) -> str:
    """The bytes at the tensor's planned place in device memory, as the device left them, with
    the host reference's value for the same inputs beside it. A buffer the plan gave to a later
    tensor holds that tensor's bytes now: said, not hidden (that is what memory reuse means)."""
    label = f"{node.name}:{index}"
    logical = node.op_desc.get_attr(OUTPUT_OFFSET)[index]
    desc = node.op_desc.output_descs[index]
    addr = state.model.resolve(logical)
    data = state.model.device.memory.view(addr, desc.shape.dims, desc.dtype.to_numpy()).copy()
    text = tensor_text.full(label, data, f"device memory at {addr:#x}, logical {logical:#x}")
    if state.built is None:  # an OM target: no memory plan to say whether the buffer moved on
        return text
    plan = state.built.memory
    try:
        row = plan.row(label)
    except KeyError:
        return text
    later = [r for r in plan.rows if r.segment == row.segment and r.first > row.last
             and r.offset < row.end and row.offset < r.end]
    if later:
        first = min(later, key=lambda r: r.first)
        return (text + f"\n  note: its buffer was reused by {first.label} after op "
                f"{plan.op_names[row.last]}; the bytes are no longer {label}'s")
    diff = float(np.max(np.abs(data.astype(np.float64) - reference))) if data.size else 0.0
    return text + f"\n  host reference: max abs difference {diff:.3g}"
