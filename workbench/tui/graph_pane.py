"""Pane 1, the graph: every node with its type, engine, stream id, memory offset and output
descs, grouped by graph (engine partitions and If/Loop bodies in place); the cells the last
step changed shown old→new; Enter opens a node's anchors and peers under it. A filter box
narrows the rows (Enter in it jumps to the first match). v draws the selected node's
neighbourhood under the table (neighbourhood.py), following the cursor."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from ge_core.graph import ComputeGraph
from npu_emu.base.counted import counted
from workbench.debugger.targets.target_kind import Capability
from workbench.debugger.views.graph_table import COLUMNS, find_node
from workbench.debugger.views.neighbourhood import Drawing, draw, neighbourhood
from workbench.debugger.views.step_changes import StepChanges
from workbench.tui.graph_lines import OUTPUT, GraphLines, row_key
from workbench.tui.pane import Pane
from workbench.tui.session_views import SessionViews
from workbench.tui.tree_table import Column, TableLine, TreeTable

ANCHOR_OF = {"input": "in", "output": "out"}   # a desc's side, as its anchor's line says


@dataclass
class GraphData:
    lines: list[TableLine] | None          # all lines anew, or None: only ``updated``
    updated: list[TableLine] = field(default_factory=list)
    marks: dict[str, dict[int, str]] = field(default_factory=dict)
    summary: str = ""
    current: str | None = None             # the row of the node the target is at
    tones: dict[str, str] = field(default_factory=dict)   # row -> what the step did to it


def _node_count(graphs: list[ComputeGraph]) -> int:
    """The nodes of every live graph, the root's If/Loop bodies included."""
    if not graphs[0].subgraphs:   # no bodies: a count per graph, not a walk of 20k nodes
        return sum(map(len, graphs))
    return sum(len(g.all_nodes()) if i == 0 else len(g) for i, g in enumerate(graphs))


# a node's box in the drawing, by its stream (no stream: bold)
STREAM_STYLES = ("bold cyan", "bold magenta", "bold yellow", "bold green", "bold blue",
                 "bold red")


class GraphPane(Pane):
    PANE_ID = "graph"
    BREAKS = True
    TITLE = "1 Graph"
    NEEDS = Capability.GRAPH
    # priority, as `:` (keymap.py): the filter text typed right after `/` reaches the filter
    BINDINGS = [Binding("slash", "filter", "Filter", show=False, id="graph-filter",
                        priority=True),
                Binding("v", "view", "Draw", show=False, id="graph-view")]

    class NodeSelected(Message):
        def __init__(self, node: str | None) -> None:
            super().__init__()
            self.node = node

    def __init__(self) -> None:
        super().__init__()
        # row keys whose anchors are open: the UI thread toggles them while a read may be
        # going through them on the worker, so a read takes a copy (made in C, under the GIL)
        self.expanded: set[str] = set()
        self._seen: tuple | None = None   # what the last read was of: run, graphs, generation
        self._current: str | None = None
        self.summary = ""
        self.drawing: Drawing | None = None   # the neighbourhood drawn under the table (v)
        self._lines = GraphLines()   # the last read's, kept for the next
        self._graph_names: list[str] = []   # the sections' graphs, in order (for the UI thread)
        self._relist = False   # the lines change though the graph did not (anchors opened)
        self._node_total = 0   # in every live graph, as of the last read

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter nodes (Enter jumps to the first match, Esc clears)",
                    id="graph-filter")
        yield Static("", id="graph-summary", markup=False)
        yield TreeTable([Column("node", 14, 40, name=True), Column("type", 6, 20, name=True),
                         Column("engine", 6, 20, name=True),
                         Column("stream", 6, 10), Column("offset", 6, 24),
                         Column("output", 8, 60)], id="graph-table")
        with VerticalScroll(id="graph-dag"):
            yield Static("", id="graph-dag-text", markup=False)

    @property
    def table(self) -> TreeTable:
        return self.query_one(TreeTable)

    def focus_main(self) -> None:
        self.screen.set_focus(self.table)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "filter":   # a `/` typed in the filter (node names have them) is its
            return not self.query_one("#graph-filter", Input).has_focus
        return True

    def action_filter(self) -> None:
        box = self.query_one("#graph-filter", Input)
        box.display = True
        self.screen.set_focus(box)   # now: the filter text typed next is its

    def on_key(self, event) -> None:
        box = self.query_one("#graph-filter", Input)
        if event.key == "escape" and box.has_focus:   # Esc: no filter, back to the table
            event.stop()
            box.value = ""
            box.display = False
            self.table.focus()

    # -- reading (worker) -------------------------------------------------------------------------
    def read(self, views: SessionViews) -> GraphData | None:
        """The rows of every live graph. After a command whose changes are known, only the
        rows whose cells it changed are made again: the rest are the last read's lines, in
        the graph's topological order as it is now (graph_lines.py). What it did to a row
        (added, relinked) is a tone over the line, gone at the next step at no cost."""
        d = views.debugger
        state = d.state if d is not None else None
        if state is None or state.graph is None:
            self._seen = None
            return GraphData([], summary="no graph yet: F10 steps into the parse")
        changes = views.step_changes()
        now = state.graphs()
        graphs = tuple(map(id, now))
        gen = views.changes.generation
        t = d.run.tracker
        current = row_key(t.node_graph, t.node) if t.node else None
        seen = (id(d.run), graphs)
        last, self._seen = self._seen, (*seen, gen)
        same_run = last is not None and last[0] == seen[0]
        if same_run and last[1:] == (*seen[1:], gen) and current == self._current \
                and not self._relist:
            return None   # nothing ran since the last read (an `info`, a `print` ...)
        # nothing ran, or one command whose changes are known: only they need reading again
        still = same_run and last[2] == gen
        follows = same_run and last[2] + 1 == gen and changes is not None
        incremental = follows and last[1] == seen[1] and not changes.structural \
            and not self._relist and self._lines.orders_kept()
        self._relist = False
        if not (follows or still):
            self._lines.forget()
        toned: dict[str, str] = {}
        if changes is not None:
            toned = {**dict.fromkeys(changes.relinked, "relinked"),
                     **dict.fromkeys(changes.added, "added")}
        self._current = current
        # only the rows whose cells or descs changed (every desc write is a DescUpdated): a
        # relink changes no cell of the row, and added nodes are new objects, made in order by
        # all_lines
        expanded = frozenset(self.expanded)
        updated = self._lines.remake(changes.nodes() if follows else set(), expanded)
        lines = None if incremental else self._lines.all_lines(state, expanded)
        if not incremental:   # else no node came or went: the count stands
            self._node_total = _node_count(now)
            self._graph_names = [s.graph.name for s in self._lines.sections]
        summary = self._summary(now, changes, views.reexecuted)
        return GraphData(lines, updated if incremental else [], self._marks(changes), summary,
                         current, self._lines.tones(toned, current))

    def _marks(self, changes: StepChanges | None) -> dict[str, dict[int, str]]:
        """The old text of each changed cell; each changed desc's on its anchor's line (shown if
        opened), in its output column; a node's output cell, its outputs' descs as they were,
        on its row (graph_lines.py)."""
        if changes is None:
            return {}
        _, kept = self._rows(changes)   # an added row is all new (its tone says so)
        parts: dict[str, dict[str, dict[int, str]]] = {
            name: {"": {COLUMNS.index(column): old for column, (old, _new) in cols.items()}}
            for name, cols in changes.changed().items() if name in kept}
        outputs: dict[str, dict[int, str]] = {}
        for name, descs in changes.changed_descs().items():
            if name not in kept:
                continue
            mine = parts.setdefault(name, {})
            for d in descs:
                mine[f"{ANCHOR_OF[d.io]} {d.index}"] = {OUTPUT: d.old}
                if d.io == "output":
                    outputs.setdefault(name, {})[d.index] = d.old
        return self._lines.marks(parts, outputs)

    def _rows(self, changes: StepChanges) -> tuple[set[str], set[str]]:
        """Of the nodes the step named, those that are a row now, and of those the rows it
        kept: there before the step and still (an added row is all new, counted as added; a
        temporary it made and removed is no row)."""
        live = self._lines.live(changes.nodes() | changes.added.keys()
                                | changes.removed.keys() | changes.relinked.keys())
        return live, live - changes.added.keys()

    def _summary(self, graphs: list[ComputeGraph], changes: StepChanges | None,
                 reexecuted: bool) -> str:
        nodes = self._node_total
        text = f"{counted(nodes, 'node')} in {counted(len(graphs), 'graph')}"
        hint = " · / filters · Enter: anchors · v: draw"
        if reexecuted:
            return text + " · re-executed: no step changes to show" + hint
        if changes is None:
            return text + hint
        # what changed in the rows kept: their cells (a node's output cell once, however many
        # of its outputs changed), each input's and output's desc, on its anchor's line, and
        # their links
        live, kept = self._rows(changes)
        descs = {n: ds for n, ds in changes.changed_descs().items() if n in kept}
        cells = sum(len(c) for n, c in changes.changed().items() if n in kept) \
            + sum(any(d.io == "output" for d in ds) for ds in descs.values())
        parts = [f"{counted(cells, 'cell')} changed"] if cells else []
        sides = Counter(d.io for ds in descs.values() for d in ds)
        if sides:
            parts.append(f"{counted(sides.total(), 'desc')} changed ("
                         + ", ".join(f"{sides[io]} {ANCHOR_OF[io]}" for io in ANCHOR_OF
                                     if sides[io]) + ")")
        # net: the nodes of a graph dropped whole (an engine partition merged back) were never
        # removed one by one
        added = [n for n in changes.added if n in live]
        removed = [n for n in changes.removed if n not in live]
        if added:
            parts.append("+" + counted(len(added), "node"))
        if removed:
            gone = ", ".join(removed[:3]) + (", ..." if len(removed) > 3 else "")
            parts.append(f"-{counted(len(removed), 'node')} ({gone})")
        relinked = [n for n in changes.relinked if n in kept]
        if relinked:
            parts.append(f"{len(relinked)} relinked")
        return text + (" · last step: " + ", ".join(parts) if parts else hint)

    # -- showing (UI) -----------------------------------------------------------------------------
    def show(self, data: GraphData | None) -> None:
        if data is None:
            return
        table = self.table
        self.summary = data.summary
        self.query_one("#graph-summary", Static).update(data.summary, layout=False)
        if data.lines is not None:
            table.set_lines(data.lines, data.marks, tones=data.tones)
        else:
            table.update_lines(data.updated, data.marks, data.tones)
        if data.current is not None:
            table.move_to(data.current)

    # -- the user ---------------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        self.table.set_filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        keys = [k for k in self.table.visible_keys if not k.startswith("graph:")]
        if keys:
            self.table.move_to(keys[0])
            if event.value:   # n and N go through the rows it left
                self.app.searched(self, event.value)
        elif event.value:
            self.app.no_match(event.value, "Graph")
        event.input.display = bool(event.value)   # an empty filter hides its box again
        self.table.focus()

    def on_tree_table_chosen(self, event: TreeTable.Chosen) -> None:
        key = event.key.partition("#")[0]
        self.expanded.symmetric_difference_update({key})
        self._relist = True
        self.app.refresh_pane(self)

    def on_tree_table_highlighted(self, event: TreeTable.Highlighted) -> None:
        self.post_message(self.NodeSelected(self.selected_node()))
        if self.query_one("#graph-dag").display:   # the drawing follows the cursor
            self._draw_selected()

    def action_view(self) -> None:
        """v: draw the selected node's neighbourhood under the table (again: put it away)."""
        dag = self.query_one("#graph-dag")
        dag.display = not dag.display
        if dag.display:
            self._draw_selected()

    def _draw_selected(self) -> None:
        key = self.table.cursor_key
        if key is None or key.startswith("graph:"):
            return
        graph, _, name = key.partition("#")[0].partition("/")
        width = self.table.size.width   # the drawing's, under it: names whole where they fit

        def read(views: SessionViews) -> Drawing | None:
            node = find_node(views.debugger.state if views.debugger else None, graph, name)
            return draw(neighbourhood(node), name, width) if node is not None else None
        self.app.read_job(read, self.show_drawing)

    def show_drawing(self, drawing: Drawing | None) -> None:
        self.drawing = drawing
        text = Text(no_wrap=True)
        if drawing is not None:
            text = Text("\n".join(drawing.lines), no_wrap=True)
            offsets = [0]
            for line in drawing.lines:
                offsets.append(offsets[-1] + len(line) + 1)
            for box in drawing.boxes:
                start = offsets[box.row] + box.col
                style = STREAM_STYLES[box.stream % len(STREAM_STYLES)] \
                    if box.stream is not None else "bold"
                if box.node == drawing.centre:
                    style += " reverse"
                text.stylize(style, start, start + box.width)
        self.query_one("#graph-dag-text", Static).update(text)

    def selected_node(self) -> str | None:
        key = self.table.cursor_key
        if key is None or key.startswith("graph:"):
            return None
        return key.partition("#")[0].partition("/")[2]

    def jump(self, node: str) -> bool:
        return any(self.table.move_to(row_key(graph, node)) for graph in self._graph_names)

    def breakpoint_spec(self) -> str | None:
        node = self.selected_node()
        return f"node {node}" if node else None
