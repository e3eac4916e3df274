"""GraphMemAssigner: from a feature-map layout to addresses on every node (graph_mem_assigner.cc).

Lays out the other segments - weights and variables at their own logical bases, zero-copy graph
outputs then inputs (smallest first) right after the feature map at 32-byte alignment, as GE's
AssignZeroCopyMemory - then writes, through set_attr so watches fire, each node's
``output_offset``, ``input_offset`` (its producers' addresses: GE's SetInputOffset),
``workspace`` and ``workspace_bytes``.
"""
from __future__ import annotations

from typing import Callable

from ge_core.compiler.memory.mem_assigner import FmLayout
from ge_core.compiler.memory.mem_assist_info import WORKSPACE as WORKSPACE_ITEM
from ge_core.compiler.memory.mem_assist_info import MemAssistInfo, MemSymbol
from ge_core.compiler.memory.mem_map import (FEATURE_MAP, VARIABLE, WEIGHT, ZERO_COPY_INPUT,
                                             ZERO_COPY_OUTPUT, MemRow)
from ge_core.graph.attr_names import INPUT_OFFSET, OUTPUT_OFFSET, WORKSPACE, WORKSPACE_BYTES
from ge_core.om.logical_memory import FEATURE_MAP_BASE, VAR_BASE, WEIGHT_BASE, align

ZERO_COPY_ALIGN = 32  # docs/en/design/constraints/memory-constraints.md
NO_ADDRESS = -1       # an optional input the model left out
ZERO_COPY = "zero_copy"  # both zero-copy segments: one region, sized together


class GraphMemAssigner:
    def __init__(self, info: MemAssistInfo, layout: FmLayout) -> None:
        self.info = info
        self.layout = layout
        self.address: dict[str, int] = {}  # symbol label or workspace key -> logical address
        self.segment_bytes: dict[str, int] = {}

    def assign(self) -> list[MemRow]:
        """Address every buffer, write the node attributes, return the memory map's rows."""
        self._feature_map()
        by_segment = {s: [] for s in (WEIGHT, VARIABLE, ZERO_COPY_OUTPUT, ZERO_COPY_INPUT)}
        for sym in self.info.symbols.values():
            if sym.segment in by_segment:
                by_segment[sym.segment].append(sym)
        self._pack(WEIGHT, by_segment[WEIGHT], WEIGHT_BASE, align)
        self._pack(VARIABLE, by_segment[VARIABLE], VAR_BASE, align)
        zero_copy = by_segment[ZERO_COPY_OUTPUT] + \
            sorted(by_segment[ZERO_COPY_INPUT], key=lambda s: (s.size, s.first))
        self._pack(ZERO_COPY, zero_copy, FEATURE_MAP_BASE + self.layout.total,
                   lambda n: align(n, ZERO_COPY_ALIGN))
        self._set_offsets()
        return self._rows()

    def _feature_map(self) -> None:
        for label, (item, offset) in self.info.placement.items():
            self.address[label] = FEATURE_MAP_BASE + self.layout.offsets[item] + offset

    def _pack(self, segment: str, symbols: list[MemSymbol], base: int,
              rounding: Callable[[int], int]) -> None:
        offset = 0
        for sym in symbols:
            self.address[sym.label] = base + offset
            offset += rounding(sym.size)
        self.segment_bytes[segment] = offset

    def _set_offsets(self) -> None:
        info, address = self.info, self.address
        for node in info.order:
            op = node.op_desc
            op.set_attr(OUTPUT_OFFSET, [address[info.anchor_symbol[a.label]]
                                        for a in node.out_data_anchors])
            op.set_attr(INPUT_OFFSET, [address[info.anchor_symbol[a.peer.label]]
                                       if a.peer is not None else NO_ADDRESS
                                       for a in node.in_data_anchors])
            sizes = info.workspaces[node.name]
            op.set_attr(WORKSPACE, [address[f"{node.name}:ws{k}"] for k in range(len(sizes))])
            op.set_attr(WORKSPACE_BYTES, list(sizes))

    def _rows(self) -> list[MemRow]:
        info = self.info
        rows = [MemRow(self.address[s.label], s.size, s.first, max(s.accesses), s.label,
                       s.stream, s.segment, tuple(s.aliases), s.accesses,
                       info.within.get(s.label, ""))
                for s in info.symbols.values()]
        rows += [MemRow(self.address[i.key], i.size, i.first, i.last, i.key, i.stream,
                        FEATURE_MAP, (), i.accesses)
                 for i in info.items if i.kind == WORKSPACE_ITEM]
        return sorted(rows, key=lambda r: (r.offset, r.label))
