"""Text renderings of a CompileResult: the pass table (the terminal's compiler-explorer pass
pipeline) and the stage summary. Pure functions of plain records."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ge_core.compiler.memory.mem_options import shown_assigner
from ge_core.passes import not_ge
from ge_core.stream_label import logical_stream_name

if TYPE_CHECKING:   # records only: the faces import this before any compile has run
    from ge_core.compiler.compile_pipeline import CompileResult
    from ge_core.compiler.model_builder import BuildResult


def type_delta_text(delta: tuple[tuple[str, int], ...], limit: int = 6) -> str:
    parts = [f"{t}{d:+d}" for t, d in sorted(delta, key=lambda td: (-abs(td[1]), td[0]))]
    more = len(parts) - limit
    return " ".join(parts[:limit]) + (f" (+{more} more)" if more > 0 else "")


def pass_table(result: CompileResult, built: BuildResult | None = None,
               only_changed: bool = False) -> str:
    """Every pass of the optimisation stages, then of the build's stream stages."""
    rows = [("#", "stage", "pass", "graph", "changed", "nodes", "ms", "node types")]
    records = result.passes + (built.passes if built is not None else [])
    for i, r in enumerate(records, 1):
        if only_changed and not r.changed:
            continue
        # a node pass group's members, with their edits where they made any
        inner = " [" + ", ".join(f"{not_ge.shown(p)}:{n}" if n else not_ge.shown(p)
                                 for p, n in r.detail) + "]" if r.detail else ""
        rows.append((str(i), r.stage, not_ge.shown(r.name, r.stage), r.graph,
                     "yes" if r.changed else "-", str(r.nodes_after), f"{r.seconds * 1e3:.1f}",
                     type_delta_text(r.type_delta) + inner))
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]
             for row in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def summary(result: CompileResult) -> str:
    g = result.graph
    lines = [f"graph {g.name}: {result.nodes_before} nodes -> {len(g.all_nodes())} nodes"]
    lines += [f"  stage {s.stage:<22} {s.nodes_after:>6} nodes  {s.seconds * 1e3:8.1f} ms"
              for s in result.stages]
    if result.engines:
        lines.append("  engines: "
                     + ", ".join(f"{e} {n}" for e, n in sorted(result.engines.items())))
    if result.partitions:
        lines.append(f"  partitions: {len(result.partitions)} ("
                     + ", ".join(f"{eng.replace('Engine', '')}:{n}"
                                 for _, eng, n in result.partitions[:8])
                     + (", ..." if len(result.partitions) > 8 else "") + ")")
    for w in result.warnings:
        lines.append(f"  warning: {w}")
    eq = result.equivalence
    if eq is not None:
        if eq.first is None:
            lines.append(f"  equivalence: outputs kept by every pass ({eq.checks} checks)")
        else:
            lines.append(f"  equivalence: FIRST MISMATCH: {eq.first}")
    if result.dumps:
        lines.append(f"  dumped {len(result.dumps)} files to {result.dumps[0].parent}")
    return "\n".join(lines) + "\n"


def build_summary(built: BuildResult) -> str:
    s, m = built.streams, built.memory
    events = " -> ".join(str(n) for _, n in s.event_counts[:4])
    kind = s.sync_kind + "s"
    lines = [
        f"  streams: {s.logical_streams} logical, {s.physical_streams} physical "
        f"(head {', '.join(map(logical_stream_name, s.head_streams)) or '-'}"
        + (f"; {len(s.splits)} split" if s.splits else "") + ")",
        f"  {kind}: {events} (inserted -> OptimizeBySend -> ByRecv -> ByStreamActivate); "
        f"minimum {s.events_minimum}"
        + (f", {s.redundant_found} redundant" if s.redundant_found else "")
        + (f", {s.redundant_removed} removed" if s.redundant_removed else "")
        # the split's pairs come after the sync steps: each old stream's last task records one
        + (f"; {len(s.splits)} more chain the split streams" if s.splits else ""),
        f"  memory: feature map {m.feature_map_bytes} B = {m.mem_over_lower_bound:.3f} x lower "
        f"bound {m.lower_bound_bytes} B (no reuse {m.no_reuse_bytes} B; "
        f"{shown_assigner(m.assigner)}); "
        f"weights {m.weight_bytes} B, zero-copy {m.zero_copy_bytes} B",
    ]
    tasks = built.ge_model.tasks_by_stream()
    lines.append("  tasks: " + ", ".join(f"{logical_stream_name(sid)}: {len(ts)}"
                                         for sid, ts in tasks.items())
                 + f" ({sum(map(len, tasks.values()))} in all)")
    lines += [f"  warning: {w}" for w in m.warnings]
    return "\n".join(lines) + "\n"
