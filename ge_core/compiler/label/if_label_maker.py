"""IfLabelMaker: If as labels (GE's if_label_maker.cc).

    idx = Cast(cond, int32)                  GE switches on the predicate as an index:
    LabelSwitchByIndex(idx, [else, then])      false -> 0 -> else, true -> 1 -> then
    LabelSet(then)   ThenStreamActive   ...then branch...   MemcpyAsync(result -> out)
                                                                LabelGotoEx(leave)
    LabelSet(else)   ElseStreamActive   ...else branch...   MemcpyAsync(result -> ref out)
    LabelSet(leave)

Both branches write the If's outputs into one buffer per output: the then branch's copy owns it,
the else branch's copy writes into it by ref. The two branches never run in the same execution,
so their tensors may share memory as the planner sees fit: no constraint is added.
"""
from __future__ import annotations

from ge_core.compiler.label.label_maker import LabelMaker
from ge_core.graph.anchor import OutDataAnchor

ONNX_INT32 = 6   # TensorProto.INT32, Cast's "to" (the kernels take ONNX's enum)


class IfLabelMaker(LabelMaker):
    def make(self) -> list[OutDataAnchor]:
        then_enter, else_enter, leave = (self.allocator.new_label() for _ in range(3))
        index = self.compute("Cast", [self.parent_input(0)], to=ONNX_INT32)
        self.label_switch(index, [else_enter, then_enter])
        then_body = self.enter_body(then_enter, "ThenStreamActive")
        outputs = [self.copy(r) for r in self._branch("then_branch", then_body)]
        self.label_goto(leave)
        else_body = self.enter_body(else_enter, "ElseStreamActive")
        outputs = [self.copy(r, into=o)
                   for r, o in zip(self._branch("else_branch", else_body), outputs)]
        self.label_set(leave)
        return outputs

    def _branch(self, attr: str, body_id: str) -> list[OutDataAnchor]:
        results = self.inline(self.body(attr), [], body_id)
        if len(results) != len(self.node.out_data_anchors):
            raise self.fail(f"{attr} returns {len(results)} values for "
                            f"{len(self.node.out_data_anchors)} outputs")
        return results
