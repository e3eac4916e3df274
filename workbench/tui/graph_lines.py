"""The graph pane's lines, kept from one read to the next (docs/architecture.md, "The graph
pane"). A step that adds, removes, relinks or changes K nodes of an N-node graph makes K lines
again; the other N - K are the last read's own line objects, put in the graph's topological
order (ComputeGraph keeps it until an edit) by a map in C, not by a Python pass over each row.
So the rows are always in the order a read from nothing shows, group by group: the root, its
If/Loop bodies under their nodes, each engine partition."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter, is_

from ge_core.graph import ComputeGraph, Node
from workbench.debugger.targets.program import RunState
from workbench.debugger.views.graph_table import (COLUMNS, ShownGraph, node_anchors, node_row,
                                                  ordered, shown_graphs)
from workbench.tui.tree_table import TableLine

_NAME, _ORDER = attrgetter("name"), attrgetter("order_key")
OUTPUT = COLUMNS.index("output")   # a row's output descs; an anchor's line's desc


def row_key(graph: str, node: str) -> str:
    return f"{graph}/{node}"


@dataclass(frozen=True, slots=True)
class Section:
    """One graph's rows as the last read put them: under ``group`` at ``depth``, in the order
    ``order`` stands for (the graph's order_key: an edit, or a reorder with no trace event,
    makes another), each node's line in ``made``."""
    graph: ComputeGraph
    group: str
    depth: int
    order: object
    made: dict[Node, TableLine]


class GraphLines:
    """The lines of the last read, by section and node, and where each node's name is a row."""

    def __init__(self) -> None:
        self.sections: list[Section] = []   # the last read's, in the order shown
        self._where: dict[str, Section] = {}          # node -> the section it is a row of
        self._also: dict[str, list[Section]] = {}     # a name in several: each of them
        self._orders: tuple[list[ComputeGraph], list[object]] = ([], [])   # the sections'

    def forget(self) -> None:
        """Make every line anew at the next read (the changes since the last are not known)."""
        self.sections, self._where, self._also, self._orders = [], {}, {}, ([], [])

    def sections_of(self, name: str) -> list[Section]:
        also = self._also.get(name)
        if also is not None:
            return also
        section = self._where.get(name)
        return [section] if section is not None else []

    def orders_kept(self) -> bool:
        """Each graph still in the order of the last read (a reorder sends no trace event)."""
        graphs, orders = self._orders
        try:   # in C but for the order_key property: 10k engine partitions at each step
            return all(map(is_, map(_ORDER, graphs), orders))
        except Exception:   # parked inside a pass that is rewiring: no order to keep
            return False

    def remake(self, stale: set[str], expanded: frozenset[str]) -> list[TableLine]:
        """The last read's lines of the nodes ``stale`` (their cells or descs changed) made
        again, and kept for the next read too; and their anchors' lines, where opened."""
        lines = []
        for name in stale:
            for s in self.sections_of(name):
                node = s.graph.find_node(name)
                old = s.made.get(node) if node is not None else None
                if old is None:   # not a row the last read made: made in order (_section)
                    continue
                line = s.made[node] = TableLine(old.key, node_row(node).cells, s.group, s.depth)
                lines.append(line)
                if old.key in expanded:
                    lines += anchor_lines(old.key, node, s.depth)
        return lines

    def tones(self, toned: dict[str, str], current: str | None) -> dict[str, str]:
        """The rows' tones (TreeTable.tones) from the nodes', the current row's over them."""
        tones = {row_key(s.graph.name, name): tone for name, tone in toned.items()
                 for s in self.sections_of(name)}
        if current is not None:
            tones[current] = "current"
        return tones

    def all_lines(self, state: RunState, expanded: frozenset[str]) -> list[TableLine]:
        """Every line, the last read's where it has one (after ``remake``)."""
        shown = shown_graphs(state)
        bodies: dict[str, list[ShownGraph]] = {}   # owner node -> its If/Loop bodies, in order
        for s in shown:
            if s.owner is not None:
                bodies.setdefault(s.owner, []).append(s)
        kept = {(s.graph.name, s.depth): s.made for s in self.sections}
        lines: list[TableLine] = []
        self.forget()
        for s in shown:
            if s.owner is None:
                self._section(s, None, 0, bodies, lines, kept, expanded)
        self._orders = ([s.graph for s in self.sections], [s.order for s in self.sections])
        return lines

    def _section(self, shown: ShownGraph, parent: str | None, depth: int,
                 bodies: dict[str, list[ShownGraph]], lines: list[TableLine],
                 kept: dict[tuple[str, int], dict[Node, TableLine]], expanded: frozenset[str]
                 ) -> None:
        """One graph's group line and rows, a node's anchors (opened) and bodies under it."""
        g = shown.graph
        group = f"graph:{g.name}"
        lines.append(TableLine(group, (shown.title,), parent, depth, group=True))
        order = ordered(g)
        # per row of up to 20k, at every step that adds, removes or relinks nodes: in C, the
        # nodes the last read had no line for (new ones) found as the Trues of ``missing``
        rows = list(map(kept.get((g.name, depth + 1), {}).get, order))
        missing = list(map(is_, rows, repeat(None)))
        i = 0
        while True:
            try:
                i = missing.index(True, i)
            except ValueError:
                break
            node = order[i]
            rows[i] = TableLine(row_key(g.name, node.name), node_row(node).cells, group,
                                depth + 1)
            i += 1
        made = dict(zip(order, rows))   # only the live nodes: the dead let go
        section = Section(g, group, depth + 1, _order_key(g), made)
        self.sections.append(section)
        names = dict.fromkeys(map(_NAME, order), section)
        if not self._where.keys().isdisjoint(names):   # (a body's node named as the root's)
            for name in self._where.keys() & names.keys():
                self._also.setdefault(name, self.sections_of(name)).append(section)
        self._where.update(names)
        opened = [n for n in (*(g.find_node(name) for name in bodies),
                              *(g.find_node(k[len(g.name) + 1:]) for k in expanded
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
            if key in expanded:
                lines += anchor_lines(key, order[i], depth + 1)
            # taken out as drawn: a body whose own node has its owner's name (two unnamed Ifs,
            # both If_0) would otherwise be drawn inside itself, for ever
            for body in bodies.pop(name, ()):
                self._section(body, group, depth + 1, bodies, lines, kept, expanded)
        lines.extend(rows[at:])

    def marks(self, cells: dict[str, dict[str, dict[int, str]]],
              outputs: dict[str, dict[int, str]]) -> dict[str, dict[int, str]]:
        """Each row's changed cells (column -> the old text), from each node's: by the part of
        its row they are in, "" for the node's own line, else an anchor's ("in 0"). A node of
        ``outputs`` (output index -> its old desc) has its row's output cell as it was: each
        changed output's own old desc, the others' as they are, as node_row joins them."""
        marks = {f"{row_key(s.graph.name, name)}#{part}" if part else row_key(s.graph.name, name):
                 cols for name, parts in cells.items() for part, cols in parts.items()
                 for s in self.sections_of(name)}
        for name, old in outputs.items():
            for s in self.sections_of(name):
                node = s.graph.find_node(name)
                if node is None:
                    continue
                key = row_key(s.graph.name, name)
                marks[key] = {**marks.get(key, {}), OUTPUT: "; ".join(
                    old.get(i, str(d)) for i, d in enumerate(node.op_desc.output_descs))}
        return marks

    def live(self, names) -> set[str]:
        """Those of ``names`` that are a row now."""
        return {n for n in names if n in self._where}


def anchor_lines(key: str, node: Node, depth: int) -> list[TableLine]:
    """The lines of a node's anchors, opened under its row ``key`` at ``depth``."""
    return [TableLine(f"{key}#{a.anchor}",
                      (a.anchor, "", "", "", "", f"{a.desc}  {', '.join(a.peers) or '-'}".strip()),
                      key, depth + 1, tone="dim")
            for a in node_anchors(node)]


def _order_key(graph: ComputeGraph) -> object:
    try:
        return graph.order_key
    except Exception:   # parked inside a pass that is rewiring: no order to keep
        return object()
