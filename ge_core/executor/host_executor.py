"""Runs a ComputeGraph on the host, node by node, with the numpy kernels of npu_emu.

It is the baseline everything else must agree with: constant folding uses it, the pass-
equivalence check compares its outputs before and after a pass, and the device path must give
the same numbers. Each node it runs is a trace event, so the debugger can step through it.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ge_core.exec_timeout import (DEFAULT_EXEC_TIMEOUT_MS, GRAPH_EXEC_TIMEOUT, HOST_NODE_NS,
                                  host_node_budget)
from ge_core.executor.events import NodeExecuted
from ge_core.executor.function_attrs import run_with_function_attrs
from ge_core.executor.iterating_ops import run_scan, run_sequence_map
from ge_core.gc_pause import gc_paused
from ge_core.graph import ComputeGraph, GeTensor, GeTensorDesc, Node
from ge_core.graph.attr_names import (ATTR_NAME_INDEX, ATTR_NAME_PARENT_NODE_INDEX,
                                      ATTR_NAME_WEIGHTS, OPSET, PEER_LABEL)
from ge_core.graph.op_desc import kernel_attrs
from ge_core.graph.types import DataType
from ge_core.ops.control_flow import check_scan_pieces
from ge_core.ops.graph_io import RTS_OPS
from ge_core.ops.shape_refiner import InferShapeError, infer_for_inputs
from ge_core.ops.shape_rules import ShapeError
from npu_emu.driver import host_malloc
from npu_emu.op_impl import get_kernel

LATEST_OPSET = 10_000
# Input values an InferShape may read when a kernel failed: shape-like operands are few.
SHAPE_OPERAND_ELEMENTS = 4096
# Subgraph ops other than If and Loop, run with their bodies on the host.
SUBGRAPH_OPS = {"Scan": run_scan, "SequenceMap": run_sequence_map,
                "ai.onnx.preview::FlexAttention": run_with_function_attrs}


def _read(value: Value, desc: GeTensorDesc) -> Value:
    """A tensor as its consumer reads it: device memory is flat and a kernel reads by its own
    input desc, so a Reshape ReshapeRemovePass removed leaves the producer's array to be read in
    the consumer's static shape (same elements, same order). A variant's desc (an optional, a
    sequence) is a handle's scalar and says nothing of the tensor inside."""
    if isinstance(value, np.ndarray) and value.shape != desc.shape.dims \
            and desc.dtype != DataType.DT_VARIANT \
            and not desc.shape.is_unknown and value.size == desc.shape.num_elements():
        return value.reshape(desc.shape.dims)
    return value


def _refcounts(values: list[Value]) -> list[int]:
    return [sys.getrefcount(v) for v in values]


def _base_refcount(view: np.ndarray) -> int:
    return sys.getrefcount(view.base)


# what _refcounts counts for an array nothing but its list holds, and _base_refcount for a base
# nothing but its one view holds: the interpreter's own references while it counts (the loop's,
# the call's) vary with its version, so they are counted, not assumed
_HELD_BY_LIST_ONLY = _refcounts([np.empty(0)])[0]
_HELD_BY_ITS_VIEW_ONLY = _base_refcount(np.empty(4).reshape(2, 2))


def _donor(ins: list[Value]) -> np.ndarray | None:
    """The largest input array nothing but ``ins`` holds, which the kernel may write its
    output into: a value whose last reader this is, as the device's memory planner gives an
    output the block of an input it no longer needs (a kernel that ``writes_out`` copes, see
    npu_emu's ``in_place``). Nothing else holds it when its one reference is ``ins``'s: no
    weight, feed, attribute or kept value is it. Nor may another array see its memory: it owns
    it (another value viewing it would hold it as its base), or it is the one view of a base
    nothing else holds (a kernel's result reshaped: a Conv's, most often). In place, a Relu or
    a BatchNorm of ResNet-50's size (802k floats) took about half the time it took into a
    fresh array (121 against 237 us, 244 against 397)."""
    best = None
    for v, count in zip(ins, _refcounts(ins)):
        if count == _HELD_BY_LIST_ONLY and type(v) is np.ndarray and _alone(v) \
                and v.flags.writeable and v.flags.c_contiguous \
                and (best is None or v.nbytes > best.nbytes):
            best = v
    return best


def _alone(v: np.ndarray) -> bool:
    """Whether no array but ``v`` reaches its memory (its base, if any, is a plain array)."""
    if v.base is None:
        return True
    return type(v.base) is np.ndarray and v.base.base is None \
        and _base_refcount(v) == _HELD_BY_ITS_VIEW_ONLY


class ExecutionError(RuntimeError):
    """A node failed to run; the message names it."""


class HostExecTimeout(ExecutionError):
    """The run went past its timeout (a Loop that never exits); the message names the node it
    stopped at and the innermost Loop around it."""

    loop: str | None = None


Value = Any  # an array, a list (an ONNX sequence), or None (absent input, empty optional)


# What the build makes of If, Loop and Case: jumps and stream switches only a device can take.
LOWERED_CONTROL_OPS = frozenset({"LabelSwitchByIndex", "LabelGoto", "LabelGotoEx",
                                 "StreamSwitch", "StreamSwitchN"})


class HostExecutor:
    """``keep_values`` keeps every tensor of the last run in ``values`` by anchor label
    ("node:idx"): the pass-equivalence check feeds a partition's cut edges from it."""

    def __init__(self, graph: ComputeGraph, keep_values: bool = False,
                 timeout_ms: int = DEFAULT_EXEC_TIMEOUT_MS) -> None:
        host_malloc.tune()
        self.graph = graph
        self.timeout_ms = timeout_ms
        self._budget = host_node_budget(timeout_ms)   # nodes this run may yet run (None: no bound)
        self.opset = int(graph.root.attrs.get(OPSET, LATEST_OPSET))
        self.values: dict[str, np.ndarray] | None = {} if keep_values else None
        self._boundary: Mapping[str, np.ndarray] = {}
        self._ends: dict[str, np.ndarray] = {}
        # id(node) -> (node, type, attrs_set edits, output count, kernel, its attrs): resolved
        # once, as a loader would, and again after any attribute edit (a debugger may make one
        # mid-run). The node is held, so its id cannot pass to another node meanwhile.
        self._launches: dict[int, tuple[Node, str, int, int, Callable[..., Any],
                                        dict[str, Any]]] = {}
        # id(graph) -> what _plan and _ends_of worked out of it, under the key it holds for
        self._plans: dict[int, tuple[object, ComputeGraph, list, dict[int, int]]] = {}
        self._graph_ends: dict[int, tuple[tuple, ComputeGraph, list[Node], Node | None,
                                          Node | None]] = {}

    def run(self, feeds: Mapping[str, np.ndarray] | Sequence[np.ndarray]) -> dict[str, np.ndarray]:
        """Outputs by graph output name, in NetOutput's input order."""
        self._budget = host_node_budget(self.timeout_ms)  # each run has its timeout
        inputs, lowered, out_node = self._ends_of(self.graph)
        if not isinstance(feeds, Mapping):
            feeds = {n.op_desc.output_names[0] or n.name: v for n, v in zip(inputs, feeds)}
        if lowered is not None:
            raise ExecutionError(f"graph {self.graph.name}: its control flow was lowered to "
                                 f"device tasks ({lowered.name}, {lowered.type}); the host runs "
                                 f"a graph before the build lowers it")
        args = []
        for n in inputs:
            key = n.op_desc.output_names[0] or n.name
            if key not in feeds and n.name not in feeds:
                raise ExecutionError(f"graph {self.graph.name}: no value fed for input {key!r}")
            value = feeds.get(key, feeds.get(n.name))
            # A sequence (a list) or an empty optional (None) is fed as it is.
            args.append(value if value is None or isinstance(value, list) else np.asarray(value))
        # the collector paused, as the device's scheduler pauses it: a run makes no long-lived
        # object, and a full collection landing in it rescans the whole live graph (ShuffleNet's
        # host run: one every 50 runs, 17 ms, a twentieth of the run's time)
        with gc_paused(self.graph.bus):
            outputs = self.run_graph(self.graph, args)
        names = [nm or f"output_{i}" for i, nm in enumerate(out_node.op_desc.input_names)] \
            if out_node else []
        return dict(zip(names, outputs))

    def run_partition(self, boundary: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run an engine subgraph: PlaceHolders read ``boundary`` by the label of the tensor
        they stand for; returns what reaches each End, by the same labels."""
        self._boundary, self._ends = boundary, {}
        self._budget = host_node_budget(self.timeout_ms)
        with gc_paused(self.graph.bus):   # as run's
            self.run_graph(self.graph, [])
        return self._ends

    def run_graph(self, graph: ComputeGraph, args: Sequence[Value],
                  parent_args: Sequence[Value] = ()) -> list[Value]:
        """Run ``graph`` with its Data nodes bound to ``args`` by index; a subgraph's Data with
        parent_node_index reads the parent node's extra (captured) inputs instead."""
        steps, uses = self._plan(graph)
        uses = dict(uses)
        values: dict[int, Value] = {}  # id(OutDataAnchor) -> value
        result: list[Value] = []
        bus, name, kept = graph.bus, graph.name, self.values
        for node, sources in steps:
            ins = []
            if sources:
                descs = node.op_desc.input_descs
                for peer, idx in sources:
                    if peer is None:
                        ins.append(None)
                        continue
                    ins.append(_read(values[peer], descs[idx]))
                    left = uses[peer] = uses[peer] - 1
                    if not left:  # free early: VGG's activations are large
                        del values[peer]
            kind = node.type
            if kind == "NetOutput":
                result = ins
                continue
            if kind in RTS_OPS:  # stream order and events: the host runs one node at a time
                continue
            bus.emit(NodeExecuted, name, node.name, kind)
            if self._budget is not None:
                self._spend(node)
            outs = self._run_node(node, ins, args, parent_args, donate=True)
            for a, v in zip(node.out_data_anchors, outs):
                if a.peers:
                    values[id(a)] = v
                if kept is not None:
                    kept[a.label] = v
            outs = v = None   # no reference of ours left: each value's last reader may take it
        return result

    def _plan(self, graph: ComputeGraph) -> tuple[list[tuple[Node, list[tuple[int | None, int]]]],
                                                  dict[int, int]]:
        """The graph's nodes in order, each with where its inputs come from (the producing
        out anchor's id, None for an absent input; and the input's index), and how many readers
        each output has: worked out again only after an edit (a debugger may edit between runs;
        a Loop's body runs once per step). About a tenth of ShuffleNet's host run went to
        working it out on every run."""
        key = graph.order_key
        kept = self._plans.get(id(graph))
        if kept is None or kept[0] is not key:
            order = graph.topological_sort()
            steps = [(n, [(None if a.peer is None else id(a.peer), a.idx)
                          for a in n.in_data_anchors]) for n in order]
            uses = {id(a): len(a.peers) for n in order for a in n.out_data_anchors}
            kept = self._plans[id(graph)] = (key, graph, steps, uses)
        return kept[2], kept[3]

    def _ends_of(self, graph: ComputeGraph) -> tuple[list[Node], Node | None, Node | None]:
        """The graph's inputs in index order, a node the build lowered control flow to (if
        any), and its NetOutput: kept until any edit of it or of its subgraphs."""
        e = graph.edits
        key = (graph.order_key, e.nodes_added, e.nodes_removed, e.edges_linked, e.edges_unlinked,
               e.attrs_set)
        kept = self._graph_ends.get(id(graph))
        if kept is None or kept[0][0] is not key[0] or kept[0][1:] != key[1:]:
            lowered = next((n for n in graph.all_nodes() if n.type in LOWERED_CONTROL_OPS), None)
            kept = self._graph_ends[id(graph)] = (key, graph, graph.input_nodes, lowered,
                                                  graph.output_node)
        return kept[2], kept[3], kept[4]

    def run_node(self, node: Node, ins: Sequence[Value]) -> Sequence[Value]:
        """One compute node on host values, a subgraph op's bodies included: what the host CPU
        engine runs for a node a device executor hands it."""
        self._budget = host_node_budget(self.timeout_ms)   # each node handed over is a run
        return self._run_node(node, list(ins), (), ())

    def _spend(self, node: Node) -> None:
        self._budget -= 1
        if self._budget < 0:
            raise HostExecTimeout(f"the run did not finish within its timeout of "
                                  f"{self.timeout_ms} ms ({GRAPH_EXEC_TIMEOUT}; the host counts "
                                  f"{HOST_NODE_NS} ns a node); stopped at node {node.name}")

    def _run_node(self, node: Node, ins: list[Value], args: Sequence[Value],
                  parent_args: Sequence[Value], donate: bool = False) -> Sequence[Value]:
        """``donate``: an input only ``ins`` holds may be a single-output kernel's output
        buffer (see ``_donor``)."""
        op, kind = node.op_desc, node.type
        if kind == "Const":
            value = op.get_attr(ATTR_NAME_WEIGHTS)
            return (value.data if isinstance(value, GeTensor) else np.asarray(value),)
        if kind in ("Data", "RefData"):
            pidx = op.get_attr(ATTR_NAME_PARENT_NODE_INDEX)
            if pidx is not None:
                return (parent_args[pidx],)
            return (args[op.get_attr(ATTR_NAME_INDEX, 0)],)
        if kind == "PlaceHolder":
            return (self._boundary[op.get_attr(PEER_LABEL)],)
        if kind == "End":
            self._ends[op.get_attr(PEER_LABEL)] = ins[0]
            return ()
        try:
            if kind == "If":
                return self._run_if(node, ins)
            if kind == "Loop":
                return self._run_loop(node, ins)
            if kind == "Case":
                return self._run_case(node, ins)
            run_bodies = SUBGRAPH_OPS.get(kind)
            if run_bodies is not None:
                return run_bodies(self, node, ins)
            fn, attrs = self._launch(node)
            donor = _donor(ins) if donate and getattr(fn, "writes_out", False) \
                and len(node.out_data_anchors) == 1 else None
            outs = fn(*ins, **attrs) if donor is None else fn(*ins, out=[donor], **attrs)
        except ExecutionError:
            raise
        except Exception as exc:  # the kernel's own message, pinned to the node
            refusal = self._refusal(node, ins)
            raise ExecutionError(refusal or f"node {node.name} ({kind}): {exc}") from exc
        return outs

    def _launch(self, node: Node) -> tuple[Callable[..., Any], dict[str, Any]]:
        """The node's kernel and the attributes it takes, as last resolved unless an edit may
        have changed them (the kernel gets the attributes unpacked: a fresh dict each call)."""
        op = node.op_desc
        edits, outputs = node.graph.edits.attrs_set, len(op.output_descs)
        kept = self._launches.get(id(node))
        if kept is None or kept[0] is not node or kept[1:4] != (op.type, edits, outputs):
            kept = (node, op.type, edits, outputs, get_kernel(op.type, self.opset),
                    kernel_attrs(op))
            self._launches[id(node)] = kept
        return kept[4], kept[5]

    def _refusal(self, node: Node, ins: Sequence[Value]) -> str | None:
        """Why the node's InferShape refuses this run's inputs, if it does. A node whose shapes
        were not all known when the graph was inferred meets its inputs' shapes only now; GE's
        hybrid executor infers such a node first. Asked only once its kernel failed (it costs a
        graph of its own), so the user reads the op's reason, not the kernel's Python error."""
        if not all(isinstance(v, np.ndarray) or v is None for v in ins):
            return None   # a sequence: its desc says nothing of what it holds
        try:
            specs = [None if v is None else (v.shape, DataType.from_numpy(v.dtype)) for v in ins]
        except TypeError:   # a dtype the IR has no name for
            return None
        consts = {i: GeTensor(v) for i, v in enumerate(ins) if v is not None
                  and v.dtype.kind in "iuf" and v.size <= SHAPE_OPERAND_ELEMENTS}
        try:
            infer_for_inputs(node.op_desc, specs, consts, self.opset)
        except InferShapeError as refused:   # the op's rule (a ShapeError), not its defect
            return str(refused) if isinstance(refused.__cause__, ShapeError) else None
        return None

    def _subgraph(self, node: Node, attr: str) -> ComputeGraph:
        return node.graph.root.subgraph(node.op_desc.get_attr(attr))

    def _run_if(self, node: Node, ins: list[Value]) -> list[Value]:
        # If's only formal input is the condition; its branches read captures by parent index.
        branch = "then_branch" if bool(np.asarray(ins[0]).item()) else "else_branch"
        return self.run_graph(self._subgraph(node, branch), [], ins)

    def _run_case(self, node: Node, ins: list[Value]) -> list[Value]:
        # Input 0 picks the branch; every branch reads the Case's inputs by parent index.
        names = node.op_desc.subgraph_names
        index = int(np.asarray(ins[0]).item())
        if not 0 <= index < len(names):
            raise ExecutionError(f"node {node.name} (Case): branch index {index} of "
                                 f"{len(names)} branches")
        return self.run_graph(node.graph.root.subgraph(names[index]), [], ins)

    def _run_loop(self, node: Node, ins: list[Value]) -> list[Value]:
        body = self._subgraph(node, "body")
        n_formal = len(body.input_nodes) - sum(
            1 for d in body.input_nodes if d.op_desc.has_attr(ATTR_NAME_PARENT_NODE_INDEX))
        max_trip, cond = ins[0], ins[1]
        carried = list(ins[2:n_formal])
        n_carried = len(carried)
        scans: list[list[np.ndarray]] = []
        i = 0
        keep_going = True if cond is None else bool(np.asarray(cond).item())
        limit = None if max_trip is None else int(np.asarray(max_trip).item())
        while keep_going and (limit is None or i < limit):
            try:
                outs = self.run_graph(body, [np.array(i, dtype=np.int64), np.array(keep_going)]
                                      + carried, ins)
            except HostExecTimeout as exc:
                if exc.loop is None:   # the innermost Loop is the one that did not end
                    exc.loop = f"Loop {node.name} at iteration {i:,}"
                    exc.args = (f"{exc.args[0]}, in {exc.loop}",)
                raise
            keep_going = bool(np.asarray(outs[0]).item())
            carried = list(outs[1:1 + n_carried])
            for k, s in enumerate(outs[1 + n_carried:]):
                if len(scans) <= k:
                    scans.append([])
                scans[k].append(np.asarray(s))
            i += 1
        n_scan = len(node.out_data_anchors) - n_carried
        for k, s in enumerate(scans):
            check_scan_pieces([p.shape for p in s], k)
        stacked = [np.stack(s) if s else np.zeros((0,), np.float32) for s in scans]
        return carried + stacked + [np.zeros((0,), np.float32)] * (n_scan - len(stacked))
