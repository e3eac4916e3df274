"""The memory plan of the build as a face draws it: every buffer's logical offset and size and
its lifetime in op indices, segment by segment (the feature map reused by lifetime, the
zero-copy inputs and outputs, the weights and the variables: each segment has a base of its
own), the segments with their sizes, and which buffers hold a node's outputs."""
from __future__ import annotations

from dataclasses import dataclass

from ge_core.compiler.memory.mem_options import shown_assigner
from ge_core.compiler.memory.mem_map import (FEATURE_MAP, VARIABLE, WEIGHT, ZERO_COPY_INPUT,
                                             ZERO_COPY_OUTPUT, MemRow)
from workbench.debugger.targets.program import RunState

DRAWN = (FEATURE_MAP, ZERO_COPY_INPUT, ZERO_COPY_OUTPUT, WEIGHT, VARIABLE)


@dataclass(frozen=True)
class MemoryView:
    rows: tuple[MemRow, ...]       # the drawn segments' buffers, by segment then offset
    ops: int                       # op indices run from 0 to ops - 1
    segments: tuple[tuple[str, int, int], ...]   # segment, buffers, bytes
    summary: str


def memory_view(state: RunState | None) -> MemoryView | None:
    """None until the build's memory assignment has finished (AssignMemory, not the build)."""
    plan = state.memory_plan if state is not None else None
    if plan is None:
        return None
    rows = tuple(sorted((r for r in plan.rows if r.segment in DRAWN),
                        key=lambda r: (DRAWN.index(r.segment), r.offset, r.label)))
    sizes = {FEATURE_MAP: plan.feature_map_bytes, WEIGHT: plan.weight_bytes,
             VARIABLE: plan.variable_bytes}
    segments = tuple((name, len(plan.segment(name)),
                      sizes.get(name, sum(r.size for r in plan.segment(name))))
                     for name in DRAWN)
    summary = (f"feature map {plan.feature_map_bytes} B = {plan.mem_over_lower_bound:.3f} x "
               f"lower bound {plan.lower_bound_bytes} B (no reuse {plan.no_reuse_bytes} B; "
               f"{shown_assigner(plan.assigner)})")
    return MemoryView(rows, len(plan.op_names), segments, summary)


def buffers_of(view: MemoryView, node: str) -> set[str]:
    """The labels of the buffers holding ``node``'s outputs (aliases included)."""
    prefix = f"{node}:"
    return {r.label for r in view.rows
            if r.label.startswith(prefix) or any(a.startswith(prefix) for a in r.aliases)}
