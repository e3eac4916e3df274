"""MemAssistInfo: what every assigner reads, built once per graph (GE's MemAssistInfo).

- the ops in topological order (op index = lifetime unit, as GE's op id) and their streams;
- symbols (GE's GetRefMapping): one buffer per op output, shared by the GE-local outputs that
  alias it (Reshape, Flatten ...: "output reuses input"), so their readers extend its life; a
  multi-batch Merge joins its inputs' buffers into one, which every gear writes;
- each symbol's segment: weights, variables, zero-copy graph inputs/outputs, or feature map;
- items: what a feature-map assigner places. An item is a symbol, a workspace, or a
  continuous group (several symbols side by side in one block, as an op asked for). A
  no-padding group (a no-task Concat's inputs: ConcatNotaskPass) lies end to end inside the
  Concat's output, one block from its first input's writer to the output's last reader, reused
  like any output (GE's BlockMemAssigner gives the inputs no memory of their own and starts the
  block's life at the first of them: GetContinuousNodeLifeTimeBegin).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ge_core.compiler.memory.block_mem_stream import HappensBefore, build_happens_before
from ge_core.compiler.memory.mem_map import (FEATURE_MAP, VARIABLE, WEIGHT, ZERO_COPY_INPUT,
                                             ZERO_COPY_OUTPUT)
from ge_core.compiler.memory.mem_options import MemoryOptions
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import (ATTR_NAME_CONTINUOUS_INPUT, ATTR_NAME_CONTINUOUS_OUTPUT,
                                      ATTR_NAME_NOPADDING_CONTINUOUS_INPUT, NO_REUSE_MEM_FLAG,
                                      REUSE_INPUT_INDEX, STREAM_ID, WORKSPACE_BYTES)
from ge_core.graph.compute_graph import ALIAS_OPS, DATA_TYPES, NETOUTPUT
from ge_core.om.logical_memory import align, raw_bytes, tensor_size

# GE-local ops whose output is every one of their inputs: the gears of a multi-batch model write
# their results into one buffer, since only one gear runs (GE's Merge with mbatch-inserted-node).
MERGE_OPS = frozenset({"Merge", "StreamMerge"})
WEIGHT_OPS = frozenset({"Const", "Constant"})
VARIABLE_OPS = frozenset({"Variable"})
RT_MEMORY_HBM = 0x2  # every feature map here lives in HBM; pools are per (memory type, stream)

OUTPUT, WORKSPACE, CONTINUOUS = "output", "workspace", "continuous"  # item kinds


@dataclass
class MemSymbol:
    label: str                # "node:idx" of the output that owns the buffer
    size: int                 # the largest tensor_size among the outputs sharing it
    segment: str
    first: int                # op index of its writer
    stream: int
    no_reuse: bool            # no_reuse_mem_flag / OP_NO_REUSE_MEM on the writer
    readers: list[int] = field(default_factory=list)  # op index per consuming edge
    aliases: list[str] = field(default_factory=list)
    writers: list[int] = field(default_factory=list)  # beside ``first``: a Merge's other inputs

    @property
    def accesses(self) -> tuple[int, ...]:
        return tuple(sorted({self.first, *self.writers, *self.readers}))


@dataclass
class ContinuousGroup:
    labels: list[str]          # the symbols side by side, in input or output order
    whole: str | None = None   # no padding: the no-task Concat's output, which they make up
    sizes: list[int] = field(default_factory=list)  # no padding: each one's data bytes


@dataclass(frozen=True)
class MemItem:
    key: str
    kind: str
    size: int                         # bytes before 512 alignment
    stream: int
    mem_type: int
    writers: tuple[int, ...]          # op indices that write it
    readers: tuple[int, ...]          # op index per consuming edge: GE's ref count
    reusable: bool                    # may share memory with others (GE's reuse_mem_)
    same_stream: bool                 # every reader on the writer's stream (GE's same_stream_)
    members: tuple[tuple[str, int], ...]  # (symbol label, offset in the item)

    @property
    def first(self) -> int:
        return min(self.writers)

    @property
    def last(self) -> int:
        return max(self.writers + self.readers)

    @property
    def accesses(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.writers + self.readers)))

    @property
    def aligned(self) -> int:
        return align(self.size)


@dataclass
class MemAssistInfo:
    order: list[Node]
    op_stream: list[int]
    hb: HappensBefore
    symbols: dict[str, MemSymbol]      # by label, in topological order
    anchor_symbol: dict[str, str]      # "node:idx" -> label of the symbol it belongs to
    items: list[MemItem]               # feature-map items in order of their first writer
    placement: dict[str, tuple[str, int]]  # symbol label or workspace key -> (item, offset)
    workspaces: dict[str, list[int]]   # node name -> workspace sizes (GE's workspace_bytes)
    reuse: bool                        # False: ge.exec.disableReuseMemory
    warnings: list[str]
    within: dict[str, str] = field(default_factory=dict)  # slice symbol -> the one it lies in

    def can_reuse(self, item: MemItem) -> bool:
        return self.reuse and item.reusable

    def no_reuse_bytes(self) -> int:
        """GE's theory_no_reuse_memory_size: every item in its own aligned block."""
        return sum(i.aligned for i in self.items)

    def lower_bound_bytes(self) -> int:
        """GE's theory_min_memory_size: items that may never share count throughout, the rest
        at the op index where most are live. Tensors live at one op index are live together on
        any streams (happens-before follows topological order), so no plan can beat this."""
        fixed = sum(i.aligned for i in self.items if not i.reusable)
        delta = [0] * (len(self.order) + 1)
        for i in self.items:
            if i.reusable:
                delta[i.first] += i.aligned
                delta[i.last + 1] -= i.aligned
        live = peak = 0
        for d in delta:
            live += d
            peak = max(peak, live)
        return fixed + peak


def build_mem_assist_info(graph: ComputeGraph, options: MemoryOptions) -> MemAssistInfo:
    order = graph.topological_sort()
    op_stream = [int(n.op_desc.get_attr(STREAM_ID, 0)) for n in order]
    no_reuse = [bool(n.op_desc.get_attr(NO_REUSE_MEM_FLAG)) or n.name in options.no_reuse_ops
                or n.type in options.no_reuse_ops for n in order]
    symbols, anchor_symbol = _ref_mapping(order, op_stream, no_reuse)
    warnings: list[str] = []
    groups = _continuous_groups(order, symbols, anchor_symbol, options, warnings)
    workspaces = {n.name: list(n.op_desc.get_attr(WORKSPACE_BYTES) or []) for n in order}
    items, placement = _items(order, op_stream, no_reuse, symbols, groups, workspaces)
    within = {label: g.whole for g in groups if g.whole for label in g.labels}
    return MemAssistInfo(order, op_stream, build_happens_before(order, op_stream), symbols,
                         anchor_symbol, items, placement, workspaces, not options.disable_reuse,
                         warnings, within)


def _segment(node: Node) -> str:
    if node.type in DATA_TYPES:
        return ZERO_COPY_INPUT
    if node.type in WEIGHT_OPS:
        return WEIGHT
    if node.type in VARIABLE_OPS:
        return VARIABLE
    return FEATURE_MAP


def _size(node: Node, idx: int) -> int:
    try:
        return tensor_size(node.op_desc.output_descs[idx])
    except ValueError as exc:
        raise ValueError(f"{node.name}:{idx}: {exc}") from None


def _alias_input(node: Node) -> int | None:
    """The input whose buffer output 0 shares, if any."""
    index = 0 if node.type in ALIAS_OPS else node.op_desc.get_attr(REUSE_INPUT_INDEX)
    if index is None or index >= len(node.in_data_anchors) or \
            node.in_data_anchors[index].peer is None:
        return None
    return index


def _ref_mapping(order: list[Node], op_stream: list[int],
                 no_reuse: list[bool]) -> tuple[dict[str, MemSymbol], dict[str, str]]:
    symbols: dict[str, MemSymbol] = {}
    anchor_symbol: dict[str, str] = {}
    for i, node in enumerate(order):
        if node.type in MERGE_OPS:
            _merge(node, symbols, anchor_symbol)
            continue
        alias = _alias_input(node)
        for a in node.in_data_anchors:
            # A view's input is read through its output's readers; a ref op reads it too.
            if a.peer is not None and not (node.type in ALIAS_OPS and a.idx == alias):
                symbols[anchor_symbol[a.peer.label]].readers.append(i)
        for a in node.out_data_anchors:
            if alias is not None and a.idx == 0:
                sym = symbols[anchor_symbol[node.in_data_anchors[alias].peer.label]]
                sym.aliases.append(a.label)
                sym.size = max(sym.size, _size(node, 0))
                anchor_symbol[a.label] = sym.label
            else:
                symbols[a.label] = MemSymbol(a.label, _size(node, a.idx), _segment(node), i,
                                             op_stream[i], no_reuse[i])
                anchor_symbol[a.label] = a.label
        if node.type == NETOUTPUT:
            # What the graph returns lands in the user's buffers: zero-copy, never reused.
            for a in node.in_data_anchors:
                sym = symbols[anchor_symbol[a.peer.label]] if a.peer is not None else None
                if sym is not None and sym.segment == FEATURE_MAP:
                    sym.segment = ZERO_COPY_OUTPUT
    return symbols, anchor_symbol


def _merge(node: Node, symbols: dict[str, MemSymbol], anchor_symbol: dict[str, str]) -> None:
    """One symbol for a Merge's inputs and its output: the first input's takes the others."""
    labels = list(dict.fromkeys(anchor_symbol[a.peer.label] for a in node.in_data_anchors
                                if a.peer is not None))
    sym = symbols[labels[0]]
    for label in labels[1:]:
        other = symbols.pop(label)
        sym.size = max(sym.size, other.size)
        sym.writers += [other.first, *other.writers]
        sym.readers += other.readers
        sym.aliases += [other.label, *other.aliases]
        for anchor in [other.label, *other.aliases]:
            anchor_symbol[anchor] = sym.label
    out = node.out_data_anchors[0].label
    sym.aliases.append(out)
    anchor_symbol[out] = sym.label


def _continuous_groups(order: list[Node], symbols: dict[str, MemSymbol],
                       anchor_symbol: dict[str, str], options: MemoryOptions,
                       warnings: list[str]) -> list[ContinuousGroup]:
    """Symbols an op needs side by side: its inputs (continuous_input, or with no padding a
    no-task Concat's) or its outputs (continuous_output). GE would insert a copy where a tensor
    cannot join (a graph input, a weight, a tensor already in another group); we leave those
    groups out and say why. A no-task Concat has no copy to fall back on: ConcatNotaskPass
    checked its inputs, so one that cannot join is an error."""
    groups: list[ContinuousGroup] = []
    grouped: set[str] = set()
    for node in order:
        inputs = [anchor_symbol[a.peer.label] for a in node.in_data_anchors
                  if a.peer is not None]
        if node.op_desc.get_attr(ATTR_NAME_NOPADDING_CONTINUOUS_INPUT):
            group = ContinuousGroup(inputs, anchor_symbol[node.out_data_anchors[0].label],
                                    [raw_bytes(d) for d in node.op_desc.input_descs])
            problem = _group_problem(inputs + [group.whole], symbols, grouped)
            if problem:
                raise ValueError(f"{node.name}: no-task Concat's inputs cannot lie side by "
                                 f"side: {problem}")
            groups.append(group)
            grouped.update(group.labels)
            continue
        wanted = []
        if node.op_desc.get_attr(ATTR_NAME_CONTINUOUS_INPUT):
            wanted.append(("input", inputs))
        if node.op_desc.get_attr(ATTR_NAME_CONTINUOUS_OUTPUT):
            wanted.append(("output", [anchor_symbol[a.label] for a in node.out_data_anchors]))
        for kind, labels in wanted:
            if len(labels) < 2:
                continue  # one tensor is continuous already
            problem = _group_problem(labels, symbols, grouped)
            if problem:
                warnings.append(f"{node.name}: continuous {kind} not honoured: {problem}")
                continue
            groups.append(ContinuousGroup(labels))
            grouped.update(labels)
    return groups


def _group_problem(labels: list[str], symbols: dict[str, MemSymbol], grouped: set[str]) -> str:
    if len(set(labels)) < len(labels):
        return "one tensor fills two places"
    for label in labels:
        if symbols[label].segment != FEATURE_MAP:
            return f"{label} is in the {symbols[label].segment} segment"
        if label in grouped:
            return f"{label} is already in another continuous group"
    return ""


def _items(order: list[Node], op_stream: list[int], no_reuse: list[bool],
           symbols: dict[str, MemSymbol],
           groups: list[ContinuousGroup], workspaces: dict[str, list[int]]
           ) -> tuple[list[MemItem], dict[str, tuple[str, int]]]:
    group_of = {label: g for g in groups for label in [*g.labels, *filter(None, [g.whole])]}
    by_writer: dict[int, list[MemSymbol]] = {}
    for sym in symbols.values():
        if sym.segment == FEATURE_MAP:
            by_writer.setdefault(sym.first, []).append(sym)
    items: list[MemItem] = []
    placement: dict[str, tuple[str, int]] = {}

    def same_stream(stream: int, readers: tuple[int, ...]) -> bool:
        return stream >= 0 and all(op_stream[r] == stream for r in readers)

    for i, node in enumerate(order):
        for sym in by_writer.get(i, []):
            group = group_of.get(sym.label)
            if group is None:
                readers = tuple(sym.readers)
                items.append(MemItem(sym.label, OUTPUT, sym.size, sym.stream, RT_MEMORY_HBM,
                                     tuple(sorted({i, *sym.writers})), readers, not sym.no_reuse,
                                     same_stream(sym.stream, readers), ((sym.label, 0),)))
                placement[sym.label] = (sym.label, 0)
            elif group.labels[0] not in placement:  # the earliest writer opens the group
                items.append(_group_item(group, symbols, placement, same_stream))
        for k, size in enumerate(workspaces[node.name]):
            key = f"{node.name}:ws{k}"
            items.append(MemItem(key, WORKSPACE, size, op_stream[i], RT_MEMORY_HBM, (i,), (),
                                 not no_reuse[i], op_stream[i] >= 0, ((key, 0),)))
            placement[key] = (key, 0)
    return items, placement


def _group_item(group: ContinuousGroup, symbols: dict[str, MemSymbol],
                placement: dict[str, tuple[str, int]],
                same_stream: Callable[[int, tuple[int, ...]], bool]) -> MemItem:
    """Padded groups align each member to 512 and are never reused; a no-padding group packs
    its members by their data bytes inside the whole, and is reused like an output."""
    key = f"continuous({','.join(group.labels)})"
    members, offset = [], 0
    for k, label in enumerate(group.labels):
        members.append((label, offset))
        placement[label] = (key, offset)
        if group.whole:
            symbols[label].size = group.sizes[k]   # its slice: no padding up to the next
            offset += group.sizes[k]
        else:
            offset += align(symbols[label].size)
    syms = [symbols[label] for label in group.labels]
    first = min(syms, key=lambda s: s.first)
    writers = tuple(sorted({w for s in syms for w in (s.first, *s.writers)}))
    readers = tuple(r for s in syms for r in s.readers)
    if group.whole is None:
        return MemItem(key, CONTINUOUS, offset, first.stream, RT_MEMORY_HBM, writers, readers,
                       False, False, tuple(members))
    whole = symbols[group.whole]
    placement[group.whole] = (key, 0)
    readers += tuple(whole.readers)
    return MemItem(key, CONTINUOUS, max(offset, whole.size), first.stream, RT_MEMORY_HBM,
                   writers, readers, not any(s.no_reuse for s in (*syms, whole)),
                   same_stream(first.stream, readers), ((group.whole, 0), *members))
