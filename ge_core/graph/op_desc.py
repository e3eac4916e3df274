"""OpDesc: an op's type, name, attributes and input/output tensor descs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ge_core.graph.attr_names import GE_ANNOTATIONS
from ge_core.graph.events import AttrSet, DescUpdated, TypeSet, short_repr
from ge_core.graph.ge_tensor import UNKNOWN_DESC, GeTensorDesc
from ge_core.graph.journal import journaled, noted, stamp, touch

if TYPE_CHECKING:
    from ge_core.graph.compute_graph import EditCounts
    from ge_core.graph.node import Node
    from npu_emu.base.trace import TraceBus


# Ops whose kernel must know the node's output count, which a kernel cannot see: before opset
# 18 an even Split cuts into that many parts; MaxPool computes its Indices only when asked.
OUTPUT_COUNT_OPS = frozenset({"Split", "MaxPool"})

# EditCounts.touched's keys for a desc update and a type set (no attr key starts with ':';
# ONNX's Optional has an attribute named type)
DESCS = ":descs"
TYPE = ":type"


# Opset 1's in-place hint (Add, Relu, BatchNormalization ... 29 ops): no kernel's business
CONSUMED_INPUTS = "consumed_inputs"


def kernel_attrs(op_desc: "OpDesc") -> dict[str, Any]:
    """The attributes an op's kernel takes: the framework's, not GE's annotations, nor opset
    1's ``consumed_inputs``, which changes no value."""
    attrs = {k: v for k, v in op_desc.attrs.items()
             if not k.startswith("_") and k not in GE_ANNOTATIONS and k != CONSUMED_INPUTS}
    if op_desc.type in OUTPUT_COUNT_OPS and "num_outputs" not in attrs:
        attrs["num_outputs"] = len(op_desc.output_descs)
    return attrs


def desc_changed(old: GeTensorDesc, new: GeTensorDesc) -> bool:
    """Whether ``new`` differs from ``old`` in any field. By hand, shapes by their dims: the
    dataclasses' == builds a tuple of each side's fields (and of each shape's), six times what
    this costs, at every desc InferShape writes."""
    return old is not new and (
        old.shape.dims != new.shape.dims or old.dtype != new.dtype or old.absent != new.absent
        or old.format != new.format or old.origin_format != new.origin_format
        or (old.origin_shape is not new.origin_shape and old.origin_shape != new.origin_shape))


class HeldBy:
    """The node that held a desc before an adoption: a journal entry that puts it back."""
    __slots__ = ("node",)

    def __init__(self, node: Node | None) -> None:
        self.node = node


@journaled
class OpDesc:
    __slots__ = ("name", "type", "_attrs", "input_descs", "output_descs", "input_names",
                 "output_names", "subgraph_names", "node", "_jep", "_jb", "_lists_saved")

    def __init__(self, name: str, type: str, inputs: int = 0, outputs: int = 0,
                 attrs: dict[str, Any] | None = None) -> None:
        self.name = name
        self.type = type
        self._attrs: dict[str, Any] = dict(attrs or {})
        self.input_descs = [UNKNOWN_DESC] * inputs
        self.output_descs = [UNKNOWN_DESC] * outputs
        self.input_names: list[str] = [""] * inputs    # the framework's tensor names, if any
        self.output_names: list[str] = [""] * outputs
        self.subgraph_names: list[str] = []
        self.node: Node | None = None  # set when the desc joins a graph
        self._jep = self._jb = stamp()   # graph/journal.py
        self._lists_saved = False   # its lists are a saved state's too: copied before a write

    # -- the journal's (graph/journal.py): every write below touches first ----------------------
    # The lists are saved as they are, not copied, and copied by the first write to one of
    # them after (_own_lists): most saves are for an attribute (past Partition at 40k nodes,
    # 25k descs saved for the engine), whose restore then puts back the lists it has.
    def _saved(self) -> tuple:
        self._lists_saved = True
        return (self.name, self.type, dict(self._attrs), self.input_descs, self.output_descs,
                self.input_names, self.output_names, self.subgraph_names, self.node)

    def _restore(self, s: tuple | HeldBy) -> None:
        if s.__class__ is HeldBy:   # a logged adoption (adopted_by)
            self.node = s.node
            return
        (self.name, self.type, self._attrs, self.input_descs, self.output_descs,
         self.input_names, self.output_names, self.subgraph_names, self.node) = s
        # the state's lists: a write copies them first even with no journal recording, when
        # no save would mark them (a kept rewind's tail is redone later, its states with it)
        self._lists_saved = True

    def _own_lists(self) -> None:
        """Before a write to one of its lists: the lists its own, not a saved state's."""
        if self._lists_saved:
            self.input_descs, self.output_descs = list(self.input_descs), list(self.output_descs)
            self.input_names, self.output_names = list(self.input_names), list(self.output_names)
            self.subgraph_names = list(self.subgraph_names)
            self._lists_saved = False

    @staticmethod
    def saved_attrs(s: tuple | HeldBy) -> dict[str, Any]:
        """The attributes of a state ``_saved`` made (a journal's entry, sized by what it
        holds); none in a logged adoption's."""
        return {} if s.__class__ is HeldBy else s[2]

    def adopted_by(self, node: Node) -> None:
        """``node`` holds this desc from now: a node made with it, which may be a desc another
        node held. Logged, not saved: the rest of the desc is as it was."""
        noted(self, HeldBy, self.node)
        self.node = node

    @property
    def attrs(self) -> dict[str, Any]:
        """Read-only view by convention: write through set_attr so watches see the change."""
        return self._attrs

    def get_attr(self, key: str, default: Any = None) -> Any:
        return self._attrs.get(key, default)

    def has_attr(self, key: str) -> bool:
        return key in self._attrs

    def set_attr(self, key: str, value: Any) -> None:
        touch(self)
        old = self._attrs.get(key)
        self._attrs[key] = value
        if self.node is not None:
            edits, bus = self._edited(key)
            edits.attrs_set += 1
            edits.total += 1
            if bus is not None:
                bus.emit(AttrSet, self.name, key, short_repr(old), short_repr(value))

    def del_attr(self, key: str) -> None:
        if key in self._attrs:
            self.set_attr(key, None)
            del self._attrs[key]

    def set_type(self, type: str) -> None:
        """GE's OpDescUtilsEx::SetType: the op is of ``type`` from now. For an op in a graph,
        an edit as set_attr's is (the graph's op type counts move) and a trace event."""
        touch(self)
        old, self.type = self.type, type
        if self.node is None or old == type:
            return
        edits, bus = self._edited(TYPE)
        edits.attrs_set += 1
        edits.total += 1
        edits.types[old] -= 1
        edits.types[type] += 1
        if bus is not None:
            bus.emit(TypeSet, self.name, old, type)

    def update_input_desc(self, idx: int, desc: GeTensorDesc, differs: bool = False) -> None:
        """GE's OpDesc::UpdateInputDesc: input ``idx`` is ``desc`` from now (kept, not copied).
        Every write to a desc of an op in a graph goes through here or update_output_desc, so
        that a change is an edit a pass counts and a watch, a step and the graph pane see.
        ``differs``: the caller has compared ``desc`` with the one it replaces and found them
        different, so they are not compared again (update_peer_input_desc, at each consumer
        of every output InferShape writes)."""
        touch(self)
        self._own_lists()
        old = self.input_descs[idx]
        self.input_descs[idx] = desc
        if self.node is not None and (differs or desc_changed(old, desc)):
            self._desc_updated("input", idx, old, desc)

    def update_output_desc(self, idx: int, desc: GeTensorDesc) -> None:
        """GE's OpDesc::UpdateOutputDesc: output ``idx`` is ``desc`` from now (kept, not
        copied); see update_input_desc."""
        touch(self)
        self._own_lists()
        old = self.output_descs[idx]
        self.output_descs[idx] = desc
        if self.node is not None and desc_changed(old, desc):
            self._desc_updated("output", idx, old, desc)

    # the framework's tensor names and the subgraphs an op owns, written in place: through
    # these on an op that may have been in a graph at a checkpoint (graph/journal.py)
    def set_input_name(self, idx: int, name: str) -> None:
        touch(self)
        self._own_lists()
        self.input_names[idx] = name

    def set_output_name(self, idx: int, name: str) -> None:
        touch(self)
        self._own_lists()
        self.output_names[idx] = name

    def add_subgraph_name(self, name: str) -> None:
        touch(self)
        self._own_lists()
        self.subgraph_names.append(name)

    def remove_subgraph_name(self, name: str) -> None:
        touch(self)
        self._own_lists()
        self.subgraph_names.remove(name)

    def _desc_updated(self, io: str, idx: int, old: GeTensorDesc, new: GeTensorDesc) -> None:
        edits, bus = self._edited(DESCS)
        edits.descs_updated += 1
        edits.total += 1
        if io == "input" and edits.input_logs:   # the open walks' logs (ComputeGraph.edge_edited)
            for log in edits.input_logs:
                log.append(self.node)
        if bus is not None:   # the descs printed only for a listener
            bus.emit(DescUpdated, self.name, io, idx, str(old), str(new))

    def _edited(self, key: str) -> tuple[EditCounts, TraceBus | None]:
        """An edit of this op in a graph: ``key`` noted while the graph's edits are watched;
        the graph's counts (the caller adds its edit) and its bus, if anyone listens."""
        graph = self.node.graph
        edits = graph.edits
        touch(edits)
        if edits.touched is not None:
            edits.note(self.node, key)
        bus = graph.bus
        return edits, bus if bus.observed else None

    def append_input(self, desc: GeTensorDesc) -> None:
        """One more input, of ``desc`` and no framework name (Node.add_input's)."""
        touch(self)
        self._own_lists()
        self.input_descs.append(desc)
        self.input_names.append("")

    def clone(self) -> "OpDesc":
        """A detached copy (attribute values shared: they are never mutated in place)."""
        op = OpDesc(self.name, self.type, 0, 0, self._attrs)
        op.input_descs = list(self.input_descs)
        op.output_descs = list(self.output_descs)
        op.input_names = list(self.input_names)
        op.output_names = list(self.output_names)
        op.subgraph_names = list(self.subgraph_names)
        return op

    def input_desc(self, idx: int) -> GeTensorDesc:
        return self.input_descs[idx]

    def output_desc(self, idx: int) -> GeTensorDesc:
        return self.output_descs[idx]

    def __repr__(self) -> str:
        return f"<OpDesc {self.name}:{self.type}>"
