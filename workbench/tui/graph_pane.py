"""Pane 1, the graph: every node with its type, engine, stream id, memory offset and output
descs, grouped by graph (engine partitions and If/Loop bodies in place); the cells the last
step changed shown old→new; Enter opens a node's anchors and peers under it. A filter box
narrows the rows (Enter in it jumps to the first match). v draws the selected node's
neighbourhood under the table (neighbourhood.py), following the cursor."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from ge_core.graph import Node
from npu_emu.base.counted import counted
from workbench.debugger.targets.target_kind import Capability
from workbench.debugger.views.graph_table import (COLUMNS, NodeRow, find_node, graph_sections,
                                                  node_anchors, node_row)
from workbench.debugger.views.neighbourhood import Drawing, draw, neighbourhood
from workbench.tui.pane import Pane
from workbench.tui.session_views import SessionViews
from workbench.tui.tree_table import Column, TableLine, TreeTable

OUTPUT = COLUMNS.index("output")


def row_key(graph: str, node: str) -> str:
    return f"{graph}/{node}"


@dataclass
class GraphData:
    lines: list[TableLine] | None          # all lines anew, or None: only ``updated``
    updated: list[TableLine] = field(default_factory=list)
    marks: dict[str, dict[int, str]] = field(default_factory=dict)
    summary: str = ""
    current: str | None = None             # the row of the node the target is at


@dataclass(frozen=True, slots=True)
class _Made:
    row: NodeRow        # the row it was made from: the same row, the same line
    line: TableLine


def _node_count(state) -> int:
    """The nodes of every live graph, the root's If/Loop bodies included (20k: a walk)."""
    return sum(len(g.all_nodes()) if i == 0 else len(g) for i, g in enumerate(state.graphs()))


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
        self.expanded: set[str] = set()   # row keys whose anchors are open (membership only)
        self._seen: tuple | None = None   # what the last read was of: run, graphs, generation
        self._current: str | None = None
        self.summary = ""
        self.drawing: Drawing | None = None   # the neighbourhood drawn under the table (v)
        self._rows_of: dict[str, list[str]] = {}   # node name -> its row keys
        self._place: dict[str, tuple[str | None, int]] = {}   # row key -> parent, depth
        # the last read's rows and lines, by node: a step that adds or moves a few nodes of a
        # 20k-node graph makes those few again and keeps the rest (the node itself is held, so
        # its id names no other node while it is a key)
        self._rows: dict[tuple[int, str], tuple[Node, NodeRow]] = {}
        self._lines: dict[str, _Made] = {}
        self._relist = False   # the lines change though the graph did not (anchors opened)
        self._kept_lines: dict[str, _Made] = {}
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
        d = views.debugger
        state = d.state if d is not None else None
        if state is None or state.graph is None:
            self._seen = None
            return GraphData([], summary="no graph yet: F10 steps into the parse")
        changes = views.step_changes()
        graphs = tuple(id(g) for g in state.graphs())
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
            and not self._relist
        self._relist = False
        if not incremental:   # else no node came or went: the count stands
            self._node_total = _node_count(state)
        summary = self._summary(state, changes, views.reexecuted)
        previous, self._current = self._current, current
        if incremental:
            names = set(changes.cells) | {k.partition("/")[2] for k in (previous, current) if k}
            updated = []
            for name in sorted(names):
                for key in self._rows_of.get(name, ()):
                    graph = key.partition("/")[0]
                    node = find_node(state, graph, name)
                    if node is not None:
                        row = node_row(node)
                        self._rows[(id(node), node.graph.name)] = (node, row)
                        self._lines.pop(key, None)
                        updated.append(self._line(row, key, current))
            return GraphData(None, updated, self._marks(changes), summary, current)
        if not (follows or still):
            self._rows, self._lines = {}, {}
        stale = {*changes.cells, *changes.added, *changes.relinked} if follows else set()
        lines = self._all_lines(state, current, changes, stale)
        return GraphData(lines, [], self._marks(changes), summary, current)

    def _row_reader(self, stale: set[str]) -> Callable[[Node], NodeRow]:
        """node_row, but a node not ``stale`` (the last command did not touch it) keeps the
        row it had."""
        kept, rows = self._rows, {}

        def row(node: Node) -> NodeRow:
            key = (id(node), node.graph.name)
            old = kept.get(key)
            made = old[1] if old is not None and node.name not in stale else node_row(node)
            rows[key] = node, made
            return made
        self._rows = rows
        return row

    def _all_lines(self, state, current, changes, stale: set[str]) -> list[TableLine]:
        lines: list[TableLine] = []
        rows_of: dict[str, list[str]] = {}
        self._place = {}
        tones: dict[str, str] = {}
        if changes is not None:
            tones = {**dict.fromkeys(changes.relinked, "relinked"),
                     **dict.fromkeys(changes.added, "added")}
        self._kept_lines, self._lines = self._lines, {}
        sections = graph_sections(state, self._row_reader(stale))
        bodies: dict[str, list] = {}   # owner node -> its If/Loop bodies, in order
        for section in sections:
            if section.owner is not None:
                bodies.setdefault(section.owner, []).append(section)
        for section in sections:
            if section.owner is None:
                self._section(section, None, 0, bodies, lines, rows_of, current, tones, state)
        self._rows_of = rows_of
        return lines

    def _section(self, section, parent, depth, bodies, lines, rows_of, current, tones,
                 state) -> None:
        group = f"graph:{section.graph}"
        lines.append(TableLine(group, (section.title,), parent, depth, group=True))
        # per row of up to 20k, at every step that adds, removes or relinks nodes: locals
        line, add, expanded, d = self._line, lines.append, self.expanded, depth + 1
        for row in section.rows:
            name = row.cells[0]
            key = row_key(row.graph, name)
            keys = rows_of.get(name)
            if keys is None:
                rows_of[name] = [key]
            else:
                keys.append(key)
            add(line(row, key, current, group, d, tones.get(name, "")))
            if key in expanded:
                node = find_node(state, row.graph, name)
                for a in node_anchors(node) if node is not None else ():
                    peers = ", ".join(a.peers) or "-"
                    add(TableLine(f"{key}#{a.anchor}", (a.anchor, "", "", "", "",
                                                        f"{a.desc}  {peers}".strip()),
                                  key, depth + 2, tone="dim"))
            for body in bodies.get(name, ()):
                self._section(body, group, depth + 1, bodies, lines, rows_of, current, tones,
                              state)

    def _line(self, row, key, current, parent=None, depth=None, tone="") -> TableLine:
        if depth is None:   # an update in place: the line keeps its place in the tree
            parent, depth = self._place.get(key, (None, 1))
            return TableLine(key, row.cells, parent, depth,
                             tone="current" if key == current else tone)
        self._place[key] = (parent, depth)
        if key == current:
            tone = "current"
        old = self._kept_lines.get(key)
        if old is None or old.row is not row:
            old = _Made(row, TableLine(key, row.cells, parent, depth, tone=tone))
        else:
            line = old.line
            if line.tone != tone or line.depth != depth or line.parent != parent:
                old = _Made(row, line.placed(parent, depth, tone))
        self._lines[key] = old
        return old.line

    def _marks(self, changes) -> dict[str, dict[int, str]]:
        if changes is None:
            return {}
        marks: dict[str, dict[int, str]] = {}
        for name, cols in changes.changed().items():
            cells = {}
            for column, (old, _new) in cols.items():
                c = OUTPUT if column.startswith("output") else COLUMNS.index(column)
                cells[c] = old
            for key in self._rows_of.get(name, ()):
                marks[key] = cells
        return marks

    def _summary(self, state, changes, reexecuted: bool) -> str:
        graphs = state.graphs()
        nodes = self._node_total
        text = f"{counted(nodes, 'node')} in {counted(len(graphs), 'graph')}"
        hint = " · / filters · Enter: anchors · v: draw"
        if reexecuted:
            return text + " · re-executed: no step changes to show" + hint
        if changes is None:
            return text + hint
        cells = sum(len(c) for c in changes.changed().values())
        parts = [f"{cells} cells changed"] if cells else []
        if changes.added or changes.removed:
            # net: the nodes of a graph dropped whole (an engine partition merged back) were
            # never removed one by one
            live = {n.name for g in graphs for m in (g, *g.subgraphs) for n in m.all_nodes()}
            added = [n for n in changes.added if n in live]
            removed = [n for n in changes.removed if n not in live]
            if added:
                parts.append("+" + counted(len(added), "node"))
            if removed:
                gone = ", ".join(removed[:3]) + (", ..." if len(removed) > 3 else "")
                parts.append(f"-{counted(len(removed), 'node')} ({gone})")
        if changes.relinked:
            parts.append(f"{len(changes.relinked)} relinked")
        return text + (" · last step: " + ", ".join(parts) if parts else hint)

    # -- showing (UI) -----------------------------------------------------------------------------
    def show(self, data: GraphData | None) -> None:
        if data is None:
            return
        table = self.table
        self.summary = data.summary
        self.query_one("#graph-summary", Static).update(data.summary, layout=False)
        if data.lines is not None:
            table.set_lines(data.lines, data.marks)
        else:
            table.update_lines(data.updated, data.marks)
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

        def read(views: SessionViews) -> Drawing | None:
            node = find_node(views.debugger.state if views.debugger else None, graph, name)
            return draw(neighbourhood(node), name) if node is not None else None
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
        keys = self._rows_of.get(node)
        return bool(keys) and self.table.move_to(keys[0])

    def breakpoint_spec(self) -> str | None:
        node = self.selected_node()
        return f"node {node}" if node else None
