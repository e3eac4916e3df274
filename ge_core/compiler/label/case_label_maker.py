"""CaseLabelMaker: Case as labels (GE's case_op_label_maker.cc). ONNX has no Case; the gear passes
make one (ge_core/passes/multi_batch), whose branch index MapIndex computes on the device.

    LabelSwitchByIndex(index, [b_0 .. b_n-1])     GE allocates the leave label first
    LabelSet(b_0)   StreamActive_0   ...branch 0...   MemcpyAsync(result -> out)   LabelGotoEx
    LabelSet(b_1)   StreamActive_1   ...branch 1...   MemcpyAsync(-> ref out)      LabelGotoEx
    ...
    LabelSet(b_n-1) StreamActive_n-1 ...branch n-1... MemcpyAsync(-> ref out)
    LabelSet(leave)

As with If, the first branch's copy owns each output buffer and the others write into it by ref.
The buffer is the Case's output: for a multi-batch Case the largest gear's shape, so every gear's
result fits, written from the start of the buffer as the gear's own shape. The switch keeps the
Case's gear attributes (``_batch_num``, ``_pred_value_<i>``): GE keeps the Case op in the model
for DavinciModel::InitCase to read them; ours is gone once lowered, so the loader reads them here.
"""
from __future__ import annotations

from ge_core.compiler.label.label_maker import LabelMaker
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import ATTR_DYNAMIC_TYPE, ATTR_NAME_BATCH_NUM, ATTR_NAME_PRED_VALUE

BRANCH_INDEX = 0   # a Case's input 0 picks the branch


class CaseLabelMaker(LabelMaker):
    def make(self) -> list[OutDataAnchor]:
        names = self.node.op_desc.subgraph_names
        leave = self.allocator.new_label()
        enters = [self.allocator.new_label() for _ in names]
        switch = self.label_switch(self.parent_input(BRANCH_INDEX), enters)
        self._keep_gear_attrs(switch.op_desc)
        outputs: list[OutDataAnchor] = []
        for i, (name, enter) in enumerate(zip(names, enters)):
            body = self.enter_body(enter, f"StreamActive_{i}")
            results = self.inline(self.node.graph.subgraph(name), [], body)
            if len(results) != len(self.node.out_data_anchors):
                raise self.fail(f"branch {name} returns {len(results)} values for "
                                f"{len(self.node.out_data_anchors)} outputs")
            outputs = [self._copy_out(k, r, outputs[k] if outputs else None)
                       for k, r in enumerate(results)]
            if i + 1 < len(names):
                self.label_goto(leave)
        self.label_set(leave)
        return outputs

    def _copy_out(self, k: int, result: OutDataAnchor, into: OutDataAnchor | None
                  ) -> OutDataAnchor:
        """Branch result ``k`` into the Case's output ``k`` buffer, shaped as the Case's output
        (the largest gear) so the buffer the memory planner reserves holds any branch's."""
        out = self.copy(result, into)
        out.owner.op_desc.update_output_desc(0, self.node.op_desc.output_descs[k])
        return out

    def _keep_gear_attrs(self, op) -> None:
        case = self.node.op_desc
        if not case.has_attr(ATTR_NAME_BATCH_NUM):
            return
        op.set_attr(ATTR_NAME_BATCH_NUM, case.get_attr(ATTR_NAME_BATCH_NUM))
        for i in range(case.get_attr(ATTR_NAME_BATCH_NUM)):
            key = f"{ATTR_NAME_PRED_VALUE}_{i}"
            op.set_attr(key, case.get_attr(key))
        op.set_attr(ATTR_DYNAMIC_TYPE, case.get_attr(ATTR_DYNAMIC_TYPE))
