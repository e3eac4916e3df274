"""WhileLabelMaker: ONNX Loop as labels (GE's while_label_maker.cc; a Loop is GE's While whose
condition is a trip count and a flag).

    iter = 0, flag = cond (true if absent), v_k = v0_k       MemcpyAsync: the loop's own buffers
    LabelSet(cond)
    idx = Cast(Less(iter, M) And flag, int32)                without M: Cast(flag)
    LabelSwitchByIndex(idx, [exit, body])                    as GE: false -> 0 -> leave
    LabelSet(body)   EnterStreamActive
    ...body (reads iter, flag, v_k)...
    snapshot flag', v'_k (MemcpyAsync)                       a body may return v_j as v'_k
    rows_j <- ScatterND(rows_j, [[iter]], [y_j])             scan output j: this step's row
    iter <- iter + 1, flag <- flag', v_k <- v'_k             MemcpyAsync by ref
    LabelGotoEx(cond)
    LabelSet(exit)                                           the Loop's outputs: v_k, rows_j

The condition is the maker's own nodes on the parent's stream, not a body of its own as GE's
While cond graph is: GE's CondStreamActive would start nothing here, so there is none.

Memory: every node from the first init copy to the exit is marked no_reuse_mem_flag. A loop runs
its ops again, so a tensor the planner frees at its last reader in program order may still be
read in the next iteration; keeping the loop's tensors out of the reuse pool (they neither take
nor give blocks) is the simplest rule that is always right. Tensors from before the loop that
the body reads are freed at their last reader inside it; only nodes after the loop can then
take their blocks, and those run once the loop is done.

A scan output needs a buffer of its final shape before the first step: it is sunk only when
InferShape gave it one (a Loop that runs exactly M times, a constant: ScanPass's), as rows_j
from ConstantOfShape before the loop; one with a run-time length is refused.
"""
from __future__ import annotations

import numpy as np

from ge_core.compiler.label.if_label_maker import ONNX_INT32
from ge_core.compiler.label.label_maker import LabelMaker
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import ATTR_NAME_PARENT_NODE_INDEX
from ge_core.graph.ge_tensor import GeTensorDesc

MAX_TRIP, COND = 0, 1   # a Loop's inputs: M, cond, then the carried values (then captures)


class WhileLabelMaker(LabelMaker):
    def make(self) -> list[OutDataAnchor]:
        carried_in = self._carried()
        cond_enter, body_enter, leave = (self.allocator.new_label() for _ in range(3))
        start = len(self.region)
        zero, one = self.const(np.array(0, np.int64)), self.const(np.array(1, np.int64))
        counter = self.copy(zero)
        cond = self.parent_input(COND)
        flag = self.copy(cond if cond is not None else self.const(np.array(True)))
        carried = [self.copy(v) for v in carried_in]
        rows = [self.compute("ConstantOfShape", [self.const(np.array(d.shape.dims, np.int64))],
                             value=np.zeros(1, d.dtype.to_numpy()))
                for d in self._scan_descs(len(carried_in))]

        self.label_set(cond_enter)
        go = flag
        max_trip = self.parent_input(MAX_TRIP)
        if max_trip is not None:
            go = self.compute("And", [self.compute("Less", [counter, max_trip]), flag])
        self.label_switch(self.compute("Cast", [go], to=ONNX_INT32), [leave, body_enter])

        body = self.enter_body(body_enter, "EnterStreamActive")
        results = self.inline(self.body("body"), [counter, flag, *carried], body)
        snapshots = [self.copy(r) for r in results[:1 + len(carried)]]
        written = []
        if rows:
            row_index = self.compute("Reshape", [counter, self.const(np.array([1, 1], np.int64))])
            written = [self._write_row(r, y, row_index)
                       for r, y in zip(rows, results[1 + len(carried):])]
        self.copy(self.compute("Add", [counter, one]), into=counter)
        self.copy(snapshots[0], into=flag)
        outputs = [self.copy(s, into=v) for s, v in zip(snapshots[1:], carried)]
        self.label_goto(cond_enter)
        self.label_set(leave)
        self.no_reuse(self.region[start:])
        return outputs + written

    def _write_row(self, rows: OutDataAnchor, y: OutDataAnchor, row_index: OutDataAnchor
                   ) -> OutDataAnchor:
        """rows[iter] = y, in rows' own buffer."""
        row_dims = rows.owner.op_desc.output_descs[rows.idx].shape.dims[1:]
        # allowzero: a row's dim of 0 is 0 (an empty scan output), not "as y's"
        update = self.compute("Reshape", [y, self.const(np.array((1, *row_dims), np.int64))],
                              allowzero=1)
        return self.copy(self.compute("ScatterND", [rows, row_index, update]), into=rows)

    def _scan_descs(self, n_carried: int) -> list[GeTensorDesc]:
        descs = self.node.op_desc.output_descs[n_carried:]
        unknown = [k for k, d in enumerate(descs) if d.shape.is_unknown]
        if unknown:
            raise self.fail(f"scan output {unknown[0]} has a length known only at run time (a "
                            f"sunk Loop needs a constant M, no cond input and a body that hands "
                            f"its cond back; run the model with --mode hybrid)")
        return descs

    def _carried(self) -> list[OutDataAnchor]:
        formal = [d for d in self.body("body").input_nodes
                  if not d.op_desc.has_attr(ATTR_NAME_PARENT_NODE_INDEX)]
        n_carried = len(formal) - 2   # after the iteration number and the flag
        carried = [self.parent_input(k) for k in range(2, 2 + n_carried)]
        if any(v is None for v in carried):
            raise self.fail(f"expects {n_carried} carried inputs after M and cond")
        return carried
