"""Pane 1, the graph: every node with its type, engine, stream id, memory offset and output
descs, grouped by graph (engine partitions and If/Loop bodies in place); the cells the last
step changed shown old→new; Enter opens a node's anchors and peers under it. A filter box
narrows the rows (Enter in it jumps to the first match). v draws the selected node's
neighbourhood under the table (neighbourhood.py), following the cursor."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from operator import is_

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from ge_core.graph import ComputeGraph, Node
from npu_emu.base.counted import counted
from workbench.debugger.targets.target_kind import Capability
from workbench.debugger.views.graph_table import (COLUMNS, ShownGraph, find_node, node_anchors,
                                                  node_row, ordered, shown_graphs)
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
class _Tone:
    """A row's tone: the target's node is current, else what the last command did to it."""
    toned: dict[str, str]    # node -> added, relinked
    current: str | None      # the current row's key

    def __call__(self, key: str, name: str) -> str:
        return "current" if key == self.current else self.toned.get(name, "")


@dataclass(frozen=True, slots=True)
class _Section:
    """Where the last read put one graph's rows: under ``group``, at ``depth``, in the order
    ``order`` stands for (the graph's order_key: an edit, or a reorder with no trace event,
    makes another)."""
    graph: ComputeGraph
    group: str
    depth: int
    order: object


def _order_key(graph: ComputeGraph) -> object:
    try:
        return graph.order_key
    except Exception:   # parked inside a pass that is rewiring: no order to keep
        return object()


def _node_count(state) -> int:
    """The nodes of every live graph, the root's If/Loop bodies included."""
    graphs = state.graphs()
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
        self.expanded: set[str] = set()   # row keys whose anchors are open (membership only)
        self._seen: tuple | None = None   # what the last read was of: run, graphs, generation
        self._current: str | None = None
        self.summary = ""
        self.drawing: Drawing | None = None   # the neighbourhood drawn under the table (v)
        # The last read's lines by graph and node (the node itself is the key, so it names no
        # other node while held): a step that adds, removes, relinks or changes K nodes of a
        # 20k-node graph makes K lines again and maps the rest, in the graph's order, in C.
        self._made: dict[tuple[str, int], dict[Node, TableLine]] = {}
        self._sections: list[_Section] = []   # the last read's, in the order shown
        self._toned: dict[str, str] = {}      # node -> the tone the last read gave its lines
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
        rows it touched are made again (and those whose tone comes or goes): the rest are
        the last read's lines, in the graph's topological order as it is now."""
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
            and not self._relist \
            and all(_order_key(s.graph) is s.order for s in self._sections)
        self._relist = False
        if not (follows or still):
            self._made = {}
        toned: dict[str, str] = {}
        if changes is not None:
            toned = {**dict.fromkeys(changes.relinked, "relinked"),
                     **dict.fromkeys(changes.added, "added")}
        # a relinked node's cells are as they were: only its tone changes
        stale = {*changes.cells, *changes.added} if follows else set()
        previous, self._current = self._current, current
        dirty = stale | toned.keys() | self._toned.keys() \
            | {k.partition("/")[2] for k in (previous, current) if k}
        self._toned = toned
        self._node_total = _node_count(state)
        summary = self._summary(state, changes, views.reexecuted)
        tone = _Tone(toned, current)
        if incremental:   # no node came, went or moved: the lines keep their places
            updated = [line for section in self._sections
                       for line in self._remake(section, dirty, stale, tone)]
            return GraphData(None, updated, self._marks(changes), summary, current)
        lines = self._all_lines(state, dirty, stale, tone)
        return GraphData(lines, [], self._marks(changes), summary, current)

    def _remake(self, section: _Section, names: set[str], stale: set[str],
                tone: _Tone) -> list[TableLine]:
        """The lines of ``section``'s nodes among ``names`` that differ from the last read's:
        made again if ``stale``, else re-toned."""
        g, group, depth = section.graph, section.group, section.depth
        made = self._made.setdefault((g.name, depth), {})
        lines = []
        for name in names:
            node = g.find_node(name)
            old = made.get(node) if node is not None else None
            if old is None:   # not a row of this section, or one never made: made in order
                continue
            key = old.key
            if name in stale:
                line = TableLine(key, node_row(node).cells, group, depth, tone=tone(key, name))
            elif old.tone != tone(key, name):
                line = old.placed(group, depth, tone(key, name))
            else:
                continue
            made[node] = line
            lines.append(line)
        return lines

    def _all_lines(self, state, dirty: set[str], stale: set[str], tone: _Tone
                   ) -> list[TableLine]:
        shown = shown_graphs(state)
        bodies: dict[str, list[ShownGraph]] = {}   # owner node -> its If/Loop bodies, in order
        for s in shown:
            if s.owner is not None:
                bodies.setdefault(s.owner, []).append(s)
        lines: list[TableLine] = []
        kept, self._made, self._sections = self._made, {}, []
        for s in shown:
            if s.owner is None:
                self._section(s, None, 0, bodies, lines, kept, dirty, stale, tone)
        return lines

    def _section(self, shown: ShownGraph, parent: str | None, depth: int,
                 bodies: dict[str, list[ShownGraph]], lines: list[TableLine],
                 kept: dict[tuple[str, int], dict[Node, TableLine]], dirty: set[str],
                 stale: set[str], tone: _Tone) -> None:
        """One graph's group line and rows, a node's anchors (opened) and bodies under it."""
        g = shown.graph
        group = f"graph:{g.name}"
        lines.append(TableLine(group, (shown.title,), parent, depth, group=True))
        order = ordered(g)
        section = _Section(g, group, depth + 1, _order_key(g))
        self._sections.append(section)
        cache = (g.name, depth + 1)
        self._made[cache] = kept.get(cache, {})
        self._remake(section, dirty, stale, tone)
        # per row of up to 20k, at every step that adds, removes or relinks nodes: in C, the
        # nodes the last read had no line for (new ones) found as the Trues of ``missing``
        rows = list(map(self._made[cache].get, order))
        missing = list(map(is_, rows, repeat(None)))
        i = 0
        while True in missing[i:]:
            i = missing.index(True, i)
            node = order[i]
            key = row_key(g.name, node.name)
            rows[i] = TableLine(key, node_row(node).cells, group, depth + 1,
                                tone=tone(key, node.name))
            i += 1
        self._made[cache] = dict(zip(order, rows))   # only the live nodes: the dead let go
        opened = [n for n in (*(g.find_node(name) for name in bodies),
                              *(g.find_node(k[len(g.name) + 1:]) for k in self.expanded
                                if k.startswith(g.name + "/")))
                  if n is not None]
        if not opened:
            lines.extend(rows)
            return
        place = dict(zip(order, range(len(order))))
        at = 0
        for i in sorted({place[n] for n in opened if n in place}):
            lines.extend(rows[at:i + 1])
            at = i + 1
            key, name = rows[i].key, order[i].name
            if key in self.expanded:
                for a in node_anchors(order[i]):
                    peers = ", ".join(a.peers) or "-"
                    lines.append(TableLine(f"{key}#{a.anchor}",
                                           (a.anchor, "", "", "", "", f"{a.desc}  {peers}".strip()),
                                           key, depth + 2, tone="dim"))
            for body in bodies.get(name, ()):
                self._section(body, group, depth + 1, bodies, lines, kept, dirty, stale, tone)
        lines.extend(rows[at:])

    def _keys_of(self, name: str) -> list[str]:
        """The rows of the node called ``name``, one per section that has it."""
        return [row_key(s.graph.name, name) for s in self._sections
                if s.graph.find_node(name) is not None]

    def _marks(self, changes) -> dict[str, dict[int, str]]:
        if changes is None:
            return {}
        marks: dict[str, dict[int, str]] = {}
        for name, cols in changes.changed().items():
            cells = {}
            for column, (old, _new) in cols.items():
                c = OUTPUT if column.startswith("output") else COLUMNS.index(column)
                cells[c] = old
            for key in self._keys_of(name):
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
            members = [m for g in graphs for m in (g, *g.subgraphs)]

            def live(name: str) -> bool:   # per name the step named: not a set of 20k
                return any(m.find_node(name) is not None for m in members)
            added = [n for n in changes.added if live(n)]
            removed = [n for n in changes.removed if not live(n)]
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
        return any(self.table.move_to(row_key(s.graph.name, node)) for s in self._sections)

    def breakpoint_spec(self) -> str | None:
        node = self.selected_node()
        return f"node {node}" if node else None
