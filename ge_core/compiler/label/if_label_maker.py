"""IfLabelMaker: If as labels (GE's if_label_maker.cc).

    idx = Cast(cond, int32)                  GE switches on the predicate as an index:
    LabelSwitchByIndex(idx, [else, then])      false -> 0 -> else, true -> 1 -> then
    LabelSet(then)   ...then branch...   MemcpyAsync(result -> out)       LabelGotoEx(leave)
    LabelSet(else)   ...else branch...   MemcpyAsync(result -> ref out)
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
        self.label_set(then_enter)
        outputs = [self.copy(r) for r in self._branch("then_branch")]
        self.label_goto(leave)
        self.label_set(else_enter)
        outputs = [self.copy(r, into=o) for r, o in zip(self._branch("else_branch"), outputs)]
        self.label_set(leave)
        return outputs

    def _branch(self, attr: str) -> list[OutDataAnchor]:
        results = self.inline(self.body(attr), [])
        if len(results) != len(self.node.out_data_anchors):
            raise self.fail(f"{attr} returns {len(results)} values for "
                            f"{len(self.node.out_data_anchors)} outputs")
        return results
