"""ScanPass: an ONNX Scan becomes the Loop (GE's While) that every runtime path already lowers.

GE turns its own counted loop, For, into a While before InferShape (ForPass, run by GraphPrepare's
GraphEquivalentTransformation): a trip count from the operands, a body that takes the iteration
number. A Scan is such a counted loop whose body reads one slice of each scan input per step and
whose per-step results are stacked; so this pass rewrites it the same way, in the same place:

    Scan(s..., x..., captures...)            Loop(M, "", s..., x..., captures..., [last])
                                               M    = Gather(Shape(x_0), axis_0)   the steps
                                               last = Sub(M, 1)            (a reversed input)
    body(s_in..., x_t...)                    body(i, cond, s_in..., [x..., last: captured])
                                               x_t = Gather(x, i, axis)    (last - i reversed)
      -> (s_out..., y...)                      -> (cond, s_out..., y...)
    Scan's y_k                               the Loop's scan output k (y per step, stacked on a
                                             new axis 0), Slice(step -1) when reversed, then
                                             Transpose to put that axis at scan_output_axes[k]

The Loop has no cond input and its body hands its cond straight back, so it runs exactly M
times: once M is a constant its scan outputs have a static shape (Loop's InferShape), and the
sink path writes each step's row into that buffer (WhileLabelMaker), v2 and hybrid stack them in
the While kernel.

A Scan-8 scans each entry of a batch axis on its own, so it becomes a Loop over the entries
around that Loop (_Scan8ToLoops); its sequence_lens masks the steps past an entry's length
rather than cutting them, so the shapes stay static and both levels sink. A Scan the rewrite
cannot express (a scan output axis on a result of unknown rank) keeps its node, marked with the
reason: the host CPU engine runs it (``host_cpu_ops``) and the sink path refuses it in one line.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ge_core.graph import ComputeGraph, Node, OpDesc
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import (ATTR_NAME_INDEX, ATTR_NAME_PARENT_NODE_INDEX,
                                      ATTR_NAME_WEIGHTS, OPSET, SCAN_KEPT_REASON,
                                      SCAN_STATE)
from ge_core.graph.compute_graph import NETOUTPUT
from ge_core.graph.ge_tensor import ABSENT_DESC, GeShape, GeTensor, GeTensorDesc
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import NEWEST_OPSET
from ge_core.passes.graph_pass import GraphPass

class ScanPass(GraphPass):
    name = "ScanPass"
    covers_subgraphs = True   # it walks every graph itself: a Scan may sit in a body

    def run(self, graph: ComputeGraph) -> bool:
        changed = False
        for node in [n for n in graph.all_nodes() if n.type == "Scan"]:
            if node.op_desc.has_attr(SCAN_KEPT_REASON):
                continue
            scan_8 = int(graph.root.attrs.get(OPSET, NEWEST_OPSET)) < 9
            rewrite = _Scan8ToLoops(node) if scan_8 else _ScanToLoop(node)
            reason = rewrite.why_not()
            if reason is None:
                rewrite.rewrite()
            else:
                node.op_desc.set_attr(SCAN_KEPT_REASON, reason)
            changed = True
        return changed


def _per_index(values: Sequence[int] | None, n: int) -> list[int]:
    return [0 if values is None or i >= len(values) else int(values[i]) for i in range(n)]


class _ScanRewrite:
    """What both rewrites read off a Scan, and the nodes they add (named after it)."""

    def __init__(self, scan: Node) -> None:
        self.scan = scan
        self.graph = scan.graph
        op = scan.op_desc
        self.body = self.graph.subgraph(op.get_attr("body"))
        formal = [d for d in self.body.input_nodes
                  if not d.op_desc.has_attr(ATTR_NAME_PARENT_NODE_INDEX)]
        self.n_scan_in = int(op.get_attr("num_scan_inputs"))
        self.n_state = len(formal) - self.n_scan_in
        self.state_data = formal[:self.n_state]
        self.scan_data = formal[self.n_state:]
        self.n_scan_out = len(scan.out_data_anchors) - self.n_state

    def _add(self, graph: ComputeGraph, op_type: str, inputs: Sequence[OutDataAnchor],
             what: str, **attrs: object) -> OutDataAnchor:
        op = OpDesc(graph.unique_name(f"{self.scan.name}_{what}"), op_type, len(inputs), 1,
                    attrs)
        node = graph.add_node(op)
        for k, src in enumerate(inputs):
            src.link_to(node.in_data_anchor(k))
        return node.out_data_anchor(0)

    def _const(self, graph: ComputeGraph, value: int, what: str, dims: Sequence[int] = (),
               dtype: DataType = DataType.DT_INT64) -> OutDataAnchor:
        tensor = GeTensor(np.full(tuple(dims), value, dtype.to_numpy()))
        op = OpDesc(graph.unique_name(f"{self.scan.name}_{what}"), "Const", 0, 1,
                    {ATTR_NAME_WEIGHTS: tensor})
        op.update_output_desc(0, tensor.desc)
        return graph.add_node(op).out_data_anchor(0)

    def _data(self, graph: ComputeGraph, what: str, index: int, dtype: DataType,
              parent_index: int | None = None) -> OutDataAnchor:
        attrs: dict[str, object] = {ATTR_NAME_INDEX: index}
        if parent_index is not None:
            attrs[ATTR_NAME_PARENT_NODE_INDEX] = parent_index
        op = OpDesc(graph.unique_name(f"{self.scan.name}_{what}"), "Data", 0, 1, attrs)
        if dtype != DataType.DT_UNDEFINED:
            op.update_output_desc(0, GeTensorDesc(GeShape(()), dtype))
        return graph.add_node(op).out_data_anchor(0)

    def _steps(self, graph: ComputeGraph, x: OutDataAnchor, axis: int) -> OutDataAnchor:
        """How many slices ``x`` has along ``axis``: a Loop's trip count."""
        shape = self._add(graph, "Shape", [x], "shape")
        return self._add(graph, "Gather", [shape, self._const(graph, axis, "axis")], "trip",
                         axis=0)

    def _replace_scan(self, outputs: Sequence[OutDataAnchor]) -> None:
        """Hand the Scan's consumers ``outputs`` (one per Scan output, under its name) and drop
        the Scan."""
        scan = self.scan
        for old, new in zip(scan.out_data_anchors, outputs):
            new.owner.op_desc.set_output_name(new.idx, scan.op_desc.output_names[old.idx])
            for peer in list(old.peers):
                old.unlink(peer)
                new.link_to(peer)
        for src, dst in list(scan.in_edges()):
            src.unlink(dst)
        for src, dst in list(scan.out_edges()):
            src.unlink(dst)
        for name in list(scan.op_desc.subgraph_names):
            scan.op_desc.remove_subgraph_name(name)
        self.graph.remove_node(scan)


class _ScanToLoop(_ScanRewrite):
    def __init__(self, scan: Node, length: OutDataAnchor | None = None) -> None:
        """``length``: how many steps count (a Scan-8 entry's sequence_lens); the Loop still
        runs them all, so its shapes stay static, but later steps change nothing."""
        super().__init__(scan)
        self.length = length
        op = scan.op_desc
        self.in_axes = _per_index(op.get_attr("scan_input_axes"), self.n_scan_in)
        self.in_reverse = _per_index(op.get_attr("scan_input_directions"), self.n_scan_in)
        self.out_axes = _per_index(op.get_attr("scan_output_axes"), self.n_scan_out)
        self.out_reverse = _per_index(op.get_attr("scan_output_directions"), self.n_scan_out)

    def why_not(self) -> str | None:
        """Why this Scan stays a Scan, or None when it becomes a Loop."""
        for k, axis in enumerate(self.out_axes):
            if axis and self._body_result_rank(self.n_state + k) is None:
                return (f"scan output {k} goes on axis {axis} of a result whose rank is "
                        f"unknown before InferShape")
        return None

    # -- the parent's side -----------------------------------------------------------------------
    def rewrite(self) -> Node:
        """The Loop, in the Scan's place."""
        scan, graph = self.scan, self.graph
        inputs = [a.peer for a in scan.in_data_anchors]
        trip = self._steps(graph, inputs[self.n_state], self.in_axes[0])
        counted = trip if self.length is None else self.length
        extra = []
        if any(self.in_reverse):
            extra.append(self._add(graph, "Sub", [counted, self._const(graph, 1, "one")],
                                   "last"))
        if self.length is not None:
            extra.append(self.length)
        loop_inputs = [trip, None, *inputs, *extra]
        op = OpDesc(graph.unique_name(f"{scan.name}_Loop"), "Loop", len(loop_inputs),
                    len(scan.out_data_anchors), {"body": self.body.name})
        op.update_input_desc(1, ABSENT_DESC)
        op.input_names = ["", "", *scan.op_desc.input_names, *[""] * len(extra)]
        loop = graph.add_node(op)
        for k, src in enumerate(loop_inputs):
            if src is not None:
                src.link_to(loop.in_data_anchor(k))
        after = len(inputs) + 2
        self._rewrite_body(last_index=after if any(self.in_reverse) else None,
                           length_index=None if self.length is None else len(loop_inputs) - 1)
        outputs = [loop.out_data_anchor(i) for i in range(self.n_state)]
        for k in range(self.n_scan_out):
            outputs.append(self._place_axis(loop.out_data_anchor(self.n_state + k), k))
        self._replace_scan(outputs)
        self.body.set_parent(loop, self.body.parent_graph)
        loop.op_desc.add_subgraph_name(self.body.name)
        return loop

    def _place_axis(self, stacked: OutDataAnchor, k: int) -> OutDataAnchor:
        """The Loop stacks step t at row t of axis 0; a reversed output runs backwards, and its
        axis goes where scan_output_axes puts it."""
        graph = self.graph
        if self.out_reverse[k]:
            ints = [self._const(graph, v, f"rev{k}", [1]) for v in
                    (-1, np.iinfo(np.int64).min, 0, -1)]
            stacked = self._add(graph, "Slice", [stacked, *ints], f"reverse{k}")
        axis = self.out_axes[k]
        if axis == 0:
            return stacked
        rank = self._body_result_rank(self.n_state + k) + 1   # known: why_not checked
        axis %= rank
        perm = [*range(1, axis + 1), 0, *range(axis + 1, rank)]
        return self._add(graph, "Transpose", [stacked], f"axis{k}", perm=perm)

    def _body_result_rank(self, index: int) -> int | None:
        return self.body.output_node.op_desc.input_descs[index].shape.rank

    # -- the body's side -------------------------------------------------------------------------
    def _rewrite_body(self, last_index: int | None, length_index: int | None) -> None:
        """The Scan's body, edited in place into the Loop's: formal inputs (i, cond, states), the
        scan inputs captured whole and sliced at step i, the cond handed back first."""
        body = self.body
        for node in body.input_nodes:   # the Loop's inputs sit 2 after the Scan's
            parent_index = node.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX)
            if parent_index is not None:
                node.op_desc.set_attr(ATTR_NAME_PARENT_NODE_INDEX, parent_index + 2)
        for k, data in enumerate(self.state_data):
            data.op_desc.set_attr(ATTR_NAME_INDEX, 2 + k)
            data.op_desc.set_attr(SCAN_STATE, True)
        next_index = 1 + max(int(d.op_desc.get_attr(ATTR_NAME_INDEX, 0))
                             for d in body.input_nodes)
        i = self._data(body, "iteration", 0, DataType.DT_INT64)
        cond = self._data(body, "cond", 1, DataType.DT_BOOL)
        last = None
        if last_index is not None:
            last = self._data(body, "last", next_index, DataType.DT_INT64, last_index)
            next_index += 1
        for j, data in enumerate(self.scan_data):
            whole = self._data(body, f"{data.name}_whole", next_index + j,
                               DataType.DT_UNDEFINED, 2 + self.n_state + j)
            step = self._add(body, "Sub", [last, i], f"step{j}") if self.in_reverse[j] else i
            sliced = self._add(body, "Gather", [whole, step], f"slice{j}",
                               axis=self.in_axes[j])
            out = data.out_data_anchor(0)
            for peer in list(out.peers):
                out.unlink(peer)
                sliced.link_to(peer)
            body.remove_node(data)
        if length_index is not None:
            length = self._data(body, "length", next_index + len(self.scan_data),
                                DataType.DT_INT64, length_index)
            self._mask_past_length(self._add(body, "Less", [i, length], "counts"))
        self._hand_back_cond(cond)

    def _mask_past_length(self, counts: OutDataAnchor) -> None:
        """A step past the length keeps the states and writes zeros (Scan-8's padding)."""
        out = self.body.output_node
        for k, dst in enumerate(out.in_data_anchors):
            if k < self.n_state:
                kept = self.state_data[k].out_data_anchor(0)
            else:
                kept = self._const(self.body, 0, f"pad{k}",
                                   dtype=out.op_desc.input_descs[k].dtype)
            src = dst.peer
            src.unlink(dst)
            self._add(self.body, "Where", [counts, src, kept], f"counted{k}").link_to(dst)

    def _hand_back_cond(self, cond: OutDataAnchor) -> None:
        old = self.body.output_node
        sources = [cond] + [a.peer for a in old.in_data_anchors]
        op = OpDesc(old.name, NETOUTPUT, len(sources), 0)
        op.input_names = ["cond", *old.op_desc.input_names]
        op.input_descs = [GeTensorDesc(GeShape(()), DataType.DT_BOOL),
                          *old.op_desc.input_descs]
        for src, dst in list(old.in_edges()):
            src.unlink(dst)
        self.body.remove_node(old)
        new = self.body.add_node(op)
        for k, src in enumerate(sources):
            src.link_to(new.in_data_anchor(k))


class _Scan8ToLoops(_ScanRewrite):
    """Scan-8 scans each batch entry on its own (axis 0 of every input; the sequence on axis 1),
    so it becomes two Loops: an outer one over the batch entries, whose body takes entry b of
    every state and scan input and scans it as a Scan-9 with those directions would (the
    inner Loop, by _ScanToLoop), and hands back every result as a scan output: the outer Loop
    stacks entry b's final states and scan outputs at row b of axis 0, Scan-8's batch axis."""

    def why_not(self) -> str | None:
        if self.scan.in_data_anchor(0).peer is None:
            return None
        results = self.body.output_node.op_desc.input_descs[self.n_state:]
        for k, desc in enumerate(results):
            if desc.dtype == DataType.DT_UNDEFINED:
                return (f"scan output {k} of a Scan-8 with sequence_lens is padded with zeros "
                        f"of a type unknown before InferShape")
        return None

    def rewrite(self) -> Node:
        scan, graph = self.scan, self.graph
        lens = scan.in_data_anchor(0).peer
        inputs = [a.peer for a in scan.in_data_anchors][1:]
        loop_inputs = [self._steps(graph, inputs[self.n_state], 0), None, *inputs]
        if lens is not None:
            loop_inputs.append(lens)
        op = OpDesc(graph.unique_name(f"{scan.name}_Loop"), "Loop", len(loop_inputs),
                    len(scan.out_data_anchors))
        op.update_input_desc(1, ABSENT_DESC)
        op.input_names = ["", "", *scan.op_desc.input_names[1:]]
        if lens is not None:
            op.input_names.append(scan.op_desc.input_names[0])
        loop = graph.add_node(op)
        for k, src in enumerate(loop_inputs):
            if src is not None:
                src.link_to(loop.in_data_anchor(k))
        outer = ComputeGraph(self.graph.unique_subgraph_name(f"{loop.name}_body"))
        graph.add_subgraph(loop, outer)
        op.set_attr("body", outer.name)
        entry, length = self._entry_scan(outer, len(inputs), lens is not None)
        self._replace_scan(list(loop.out_data_anchors))
        return _ScanToLoop(entry, length).rewrite()

    def _entry_scan(self, outer: ComputeGraph, n_inputs: int,
                    lens: bool) -> tuple[Node, OutDataAnchor | None]:
        """The outer body: entry b of each state and scan input (captures pass whole) into a
        Scan-9 over the original body, whose results all go out as scan outputs; and entry b's
        sequence_lens when there is one (the outer Loop's last input)."""
        b = self._data(outer, "batch_entry", 0, DataType.DT_INT64)
        cond = self._data(outer, "cond", 1, DataType.DT_BOOL)
        args = []
        for k in range(n_inputs):
            whole = self._data(outer, f"input{k}", 2 + k, DataType.DT_UNDEFINED, 2 + k)
            batched = k < self.n_state + self.n_scan_in
            args.append(self._add(outer, "Gather", [whole, b], f"entry{k}", axis=0)
                        if batched else whole)
        attrs: dict[str, object] = {"body": self.body.name,
                                    "num_scan_inputs": self.n_scan_in}
        directions = self.scan.op_desc.get_attr("directions")
        if directions is not None:
            attrs["scan_input_directions"] = list(directions)
        n_out = len(self.scan.out_data_anchors)
        op = OpDesc(outer.unique_name(f"{self.scan.name}_entry"), "Scan", len(args), n_out, attrs)
        op.input_names = list(self.scan.op_desc.input_names[1:])
        op.output_names = list(self.scan.op_desc.output_names)
        entry = outer.add_node(op)
        for k, src in enumerate(args):
            src.link_to(entry.in_data_anchor(k))
        for node in self.body.input_nodes:   # the entry Scan's inputs sit 1 before Scan-8's
            parent_index = node.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX)
            if parent_index is not None:
                node.op_desc.set_attr(ATTR_NAME_PARENT_NODE_INDEX, parent_index - 1)
        self.scan.op_desc.remove_subgraph_name(self.body.name)
        self.body.set_parent(entry, outer)
        entry.op_desc.add_subgraph_name(self.body.name)
        out = OpDesc(outer.unique_name(NETOUTPUT), NETOUTPUT, 1 + n_out, 0)
        out.input_names = ["cond", *self.scan.op_desc.output_names]
        out.update_input_desc(0, GeTensorDesc(GeShape(()), DataType.DT_BOOL))
        net_output = outer.add_node(out)
        for k, src in enumerate([cond, *entry.out_data_anchors]):
            src.link_to(net_output.in_data_anchor(k))
        if not lens:
            return entry, None
        whole = self._data(outer, "lens", 2 + n_inputs, DataType.DT_UNDEFINED, 2 + n_inputs)
        return entry, self._add(outer, "Gather", [whole, b], "entry_lens", axis=0)
