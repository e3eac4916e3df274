"""A node's neighbourhood as a small drawn DAG, a terminal Netron for the selected node: its
producers and consumers two hops out, layered by networkx's topological generations, one box
per node, box-drawing edges between them (control edges dashed) labelled with their anchors'
indices (`0→1`: out anchor 0 to in anchor 1). Plain text and where each box is, with its
stream, so a face colours nodes by stream. No Textual here. networkx is imported on the first
drawing: ~20 MB that every served tab would carry for a key few press."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ge_core.graph import Node
from ge_core.graph.attr_names import STREAM_ID
from workbench.terminal_text import printable

if TYPE_CHECKING:
    import networkx as nx

BOX = 22            # the widest box, in columns, short of room (more where it fits)
GAP = 2             # columns between boxes of one layer
LAYER = 4           # rows from one layer's boxes to the next's: box, label, turn, arrow


@dataclass(frozen=True)
class Box:
    row: int
    col: int
    width: int
    node: str
    stream: int | None


@dataclass(frozen=True)
class Drawing:
    lines: list[str]
    boxes: list[Box]
    centre: str


def neighbourhood(node: Node, hops: int = 2) -> nx.MultiDiGraph:
    """The nodes within ``hops`` edges of ``node`` (either way) and the edges among them."""
    import networkx as nx
    g = nx.MultiDiGraph()
    seen, frontier = {node.name: node}, [node]
    for _ in range(hops):
        nxt = []
        for n in frontier:
            for peer in _peers(n):
                if peer.name not in seen:
                    seen[peer.name] = peer
                    nxt.append(peer)
        frontier = nxt
    for n in seen.values():
        stream = n.op_desc.get_attr(STREAM_ID)
        g.add_node(n.name, type=n.type, stream=stream if stream is not None and stream >= 0
                   else None)
    for n in seen.values():
        for a in n.out_data_anchors:
            for p in a.peers:
                if p.owner.name in seen:
                    g.add_edge(n.name, p.owner.name, label=f"{a.idx}→{p.idx}", control=False)
        for p in n.out_control_anchor.peers:
            if p.owner.name in seen:
                g.add_edge(n.name, p.owner.name, label="ctrl", control=True)
    return g


def _peers(n: Node) -> list[Node]:
    out = [a.peer.owner for a in n.in_data_anchors if a.peer is not None]
    out += [p.owner for a in n.out_data_anchors for p in a.peers]
    out += [p.owner for p in n.in_control_anchor.peers]
    out += [p.owner for p in n.out_control_anchor.peers]
    return out


def draw(g: nx.MultiDiGraph, centre: str, room: int = 0) -> Drawing:
    """``g`` drawn around ``centre``; its boxes as wide as the widest layer lets them be in
    ``room`` columns (cut to ``BOX`` at least, however little room)."""
    import networkx as nx
    layers = [sorted(layer) for layer in nx.topological_generations(g)]
    most = max(map(len, layers), default=1)
    box = max(BOX, (room - GAP * (most - 1)) // most)
    texts = {n: _box_text(n, g.nodes[n]["type"], box) for n in g}
    widths = [sum(len(texts[n]) for n in layer) + GAP * (len(layer) - 1) for layer in layers]
    width = max(widths, default=0)
    grid = [[" "] * width for _ in range(max(len(layers) * LAYER - (LAYER - 1), 0))]
    boxes, centre_x, row_of = [], {}, {}
    for i, layer in enumerate(layers):
        x = (width - widths[i]) // 2
        for n in layer:
            text = texts[n]
            grid[i * LAYER][x:x + len(text)] = list(text)
            boxes.append(Box(i * LAYER, x, len(text), n, g.nodes[n]["stream"]))
            centre_x[n], row_of[n] = x + len(text) // 2, i * LAYER
            x += len(text) + GAP
    lines = _Lines()
    for src, dst, data in g.edges(data=True):
        lines.edge(centre_x[src], row_of[src], centre_x[dst], row_of[dst], data["control"])
    lines.draw(grid)
    for src, dst, data in g.edges(data=True):   # the anchors' indices beside each edge's
        x, y = centre_x[src] + 1, row_of[src] + 1  # first step, where nothing is drawn yet
        if y < len(grid) and all(grid[y][x + i:x + i + 1] == [" "]
                                 for i in range(len(data["label"]))):
            grid[y][x:x + len(data["label"])] = list(data["label"])
    return Drawing(["".join(r).rstrip() for r in grid], boxes, centre)


def _box_text(name: str, op_type: str, box: int) -> str:
    text = printable(f"{name}:{op_type}")   # a model's names: its control characters escaped
    return f"[{text if len(text) <= box - 2 else text[:box - 3] + '…'}]"


# a line's cell by the sides it leaves through: up, down, left, right
_JOINS = {"ud": "│", "u": "│", "d": "│", "lr": "─", "l": "─", "r": "─", "dr": "╭", "dl": "╮",
          "ur": "╰", "ul": "╯", "udr": "├", "udl": "┤", "dlr": "┬", "ulr": "┴", "udlr": "┼"}


class _Lines:
    """The edges' lines, cell by cell, as the sides each cell joins: where edges meet, the
    joint that has exactly those sides (┬ where two turns merge into one way down, ┴ where a
    line comes down onto a turn row), not a ┼ for every overlap. Dashed where only control
    edges pass; the arrows into boxes win over any line."""

    def __init__(self) -> None:
        self.sides: dict[tuple[int, int], set[str]] = {}
        self.solid: set[tuple[int, int]] = set()   # cells a data edge passes through
        self.arrows: set[tuple[int, int]] = set()

    def _add(self, row: int, col: int, sides: str, control: bool) -> None:
        self.sides.setdefault((row, col), set()).update(sides)
        if not control:
            self.solid.add((row, col))

    def edge(self, x0: int, y0: int, x1: int, y1: int, control: bool) -> None:
        """Down from the producer's box, along the turn row, down into the consumer's box."""
        turn = y0 + 2
        self._add(y0 + 1, x0, "ud", control)
        if x1 != x0:
            self._add(turn, x0, "ur" if x1 > x0 else "ul", control)
            for x in range(min(x0, x1) + 1, max(x0, x1)):
                self._add(turn, x, "lr", control)
            self._add(turn, x1, "dl" if x1 > x0 else "dr", control)
        else:
            self._add(turn, x0, "ud", control)
        for y in range(turn + 1, y1):
            self._add(y, x1, "ud", control)
        self.arrows.add((y1 - 1, x1))

    def draw(self, grid: list[list[str]]) -> None:
        """Onto ``grid``, behind the boxes: a line through a box's row is hidden by it."""
        for (row, col), sides in self.sides.items():
            if not (0 <= row < len(grid) and 0 <= col < len(grid[row])) or \
                    grid[row][col] != " ":
                continue
            ch = _JOINS["".join(side for side in "udlr" if side in sides)]
            if (row, col) not in self.solid:
                ch = {"│": "┆", "─": "┄"}.get(ch, ch)
            grid[row][col] = ch
        for row, col in self.arrows:
            if 0 <= row < len(grid) and 0 <= col < len(grid[row]):
                grid[row][col] = "▼"
