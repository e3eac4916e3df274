"""Pane 4, memory: the build's plan, one bar per buffer over its lifetime (op indices), rows by
segment and offset, so buffers sharing an offset (reuse) sit together with their lifetimes side
by side; the buffers of the node selected in the graph pane are highlighted."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from workbench.debugger.targets.target_kind import Capability, TargetKind
from workbench.debugger.views.memory_map import MemoryView, buffers_of, memory_view
from workbench.debugger.views.model_views import NO_PLAN
from workbench.tui.pane import Pane, redraw
from workbench.tui.session_views import SessionViews
from workbench.tui.tree_table import Column, TableLine, TreeTable

FIXED = 12 + 12 + 9 + 3   # buffer, offset, bytes columns and their gaps


def bar(first: int, last: int, ops: int, width: int) -> str:
    """``width`` characters for op indices 0 .. ops-1: # where the buffer is live."""
    ops = max(ops, 1)
    a = first * width // ops
    b = max((last + 1) * width // ops, a + 1)
    return "." * a + "#" * (b - a) + "." * max(width - b, 0)


class MemoryPane(Pane):
    PANE_ID = "memory"
    TITLE = "4 Memory"
    NEEDS = Capability.GRAPH

    def __init__(self) -> None:
        super().__init__()
        self.view: MemoryView | None = None
        self.selected: set[str] = set()   # membership only: the highlighted buffers

    def compose(self) -> ComposeResult:
        yield Static("", id="memory-summary", markup=False)
        yield TreeTable([Column("buffer", 8, 28, name=True), Column("offset", 6, 12),
                         Column("bytes", 5, 9), Column("lifetime (op index)", 10, 200)],
                        id="memory-table")

    def read(self, views: SessionViews) -> MemoryView | None:
        d = views.debugger
        return memory_view(d.state if d is not None else None)

    def show(self, data: MemoryView | None) -> None:
        self.view = data
        self.redraw()

    def table_keys(self) -> list[str]:
        return self.query_one(TreeTable).visible_keys

    def select_node(self, node: str | None) -> None:
        selected = buffers_of(self.view, node) if self.view and node else set()
        if selected != self.selected:
            self.selected = selected
            self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        table = self.query_one(TreeTable)
        summary = self.query_one("#memory-summary", Static)
        view = self.view
        if view is None:
            if table.lines:
                table.set_lines([])
            note = ("an OM file carries no memory plan: open its ONNX model to see it"
                    if _built_elsewhere(getattr(self.app, "kind", None)) else NO_PLAN)
            redraw(summary, note, note, note)   # a new text may wrap to another height
            return
        segs = ", ".join(f"{name} {count} ({size} B)" for name, count, size in view.segments
                         if count or size)
        text = f"{view.summary}\n{segs}"
        redraw(summary, text, text, text)
        width = max(self.size.width - FIXED - 4, 10)
        lines, segment = [], None
        for r in view.rows:
            if r.segment != segment:
                segment = r.segment
                lines.append(TableLine(f"seg:{segment}", (f"{segment}",), group=True))
            tone = "selected" if r.label in self.selected else ""
            lines.append(TableLine(r.label, (r.label, f"{r.offset:#x}", str(r.size),
                                             bar(r.first, r.last, view.ops, width)),
                                   f"seg:{segment}", 1, tone=tone))
        table.set_lines(lines, keep=next(iter(sorted(self.selected)), None))


def _built_elsewhere(kind: TargetKind | None) -> bool:
    """A target not built in this session (an OM file): it carries no memory plan to show."""
    return kind is not None and not kind.has(Capability.BUILD)
