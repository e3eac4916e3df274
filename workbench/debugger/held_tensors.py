"""The tensors only a checkpoint store's undo journal keeps alive (ge_core/graph/journal.py): what
going back needs of the weights a fusion or a fold replaced, counted for the store's memory cap
(checkpoint.py), which cannot walk the journal at every checkpoint."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from ge_core.graph import ComputeGraph, GeTensor, Node, OpDesc
from ge_core.graph.journal import Journal


class _Note:
    """A tensor some journal entries hold: those entries' absolute indices, oldest first, the
    op descs that held it there, and whether none of them holds it in the graph now (``held``:
    the journal alone keeps it)."""

    __slots__ = ("at", "array", "ops", "held", "checked")

    def __init__(self, array: np.ndarray) -> None:
        self.at: list[int] = []
        # by id, each with the index of its first entry: a Partition's copies of one constant
        # are thousands of descs holding it, and a re-run after a rewind makes new ones
        self.ops: dict[int, tuple[OpDesc, int]] = {}
        self.array, self.held, self.checked = array, False, 0


class HeldTensors:
    """The bytes of the tensors (weights, folded values) only the journal keeps alive: those in
    its op descs' saved attributes and in the nodes made since a mark, which none of the descs
    that held them there holds in the graph now (a desc the journal never saved may still: a
    Partition copy's original, so the count errs high, never low). A fusion that replaces
    ResNet-50's conv weights leaves the old ones to the journal: 143 MiB of them, where its
    entries' own containers held 3.

    Kept up to date as the journal grows, each entry read once its epoch is over: a desc can
    leave the graph or let a tensor go only by a write, which saves it again in the epoch of
    the write (its first write after a mark), so only the tensors of the descs in the entries
    read are asked again, once every write of their epoch is done. A rewind puts descs back
    as they were: the tensors last asked about after its mark are asked again."""

    def __init__(self) -> None:
        self._notes: dict[int, _Note] = {}   # by id(array), by their newest entry, oldest first
        self._bytes = 0   # of the notes held
        self._read = 0    # the absolute index of the next entry to read
        self._stale_from: int | None = None   # notes checked from there on: ask again
        self._rewound: int | None = None   # the earliest mark rewound to since the last count

    def rewound(self, mark: int) -> None:
        """The journal was rewound to ``mark``: its entries from there on are gone. Taken into
        account at the next count, not now: a rewind is a step back the user waits for (back
        over a 40k-node fold, 20-30 ms of forgetting the folded values), and no note changes
        until the next count reads the entries written since."""
        self._rewound = mark if self._rewound is None else min(self._rewound, mark)

    def _forget_since(self, mark: int) -> None:
        notes, kept = self._notes, []
        while notes and next(reversed(notes.values())).at[-1] >= mark:
            note = notes.popitem()[1]
            note.at = [i for i in note.at if i < mark]
            if note.at:   # an older entry holds it still; the descs only newer ones held go
                note.ops = {k: (op, i) for k, (op, i) in note.ops.items() if i < mark}
                kept.append(note)
            else:
                self._forget(note)
        if kept:   # back in order of their newest entry
            merged = sorted([*notes.values(), *kept], key=lambda n: n.at[-1])
            self._notes = {id(n.array): n for n in merged}
        self._read = min(self._read, mark)
        self._stale_from = mark if self._stale_from is None else min(self._stale_from, mark)

    def bytes(self, journal: Journal) -> int:
        if self._rewound is not None:
            self._forget_since(self._rewound)
            self._rewound = None
        notes, entries, start = self._notes, journal.entries, journal.start
        while notes and next(iter(notes.values())).at[-1] < start:   # its entries dropped
            self._forget(notes.pop(next(iter(notes))))
        ask: dict[int, _Note] = {}
        if self._stale_from is not None:
            ask.update((k, n) for k, n in notes.items() if n.checked >= self._stale_from)
            self._stale_from = None
        end = journal.closed   # an epoch under way may write its descs again, unsaved
        for i in range(max(self._read, start), end):
            obj, state = entries[i - start]
            if state is None and isinstance(obj, Node):   # made since a mark
                op, attrs = obj.op_desc, obj.op_desc.attrs
            elif isinstance(obj, OpDesc):
                op, attrs = obj, OpDesc.saved_attrs(state)
            elif (removed := ComputeGraph.removed_node(state)) is not None:   # its desc with it
                op, attrs = removed.op_desc, removed.op_desc.attrs
            else:
                continue
            for a in _tensors(attrs):
                note = notes.pop(id(a), None) or _Note(a)
                note.at.append(i)
                if id(op) not in note.ops:
                    note.ops[id(op)] = op, i
                notes[id(a)] = ask[id(a)] = note
        self._read = end
        for note in ask.values():
            held = not any(_holds(op, note.array) for op, _ in note.ops.values())
            if held != note.held:
                self._bytes += note.array.nbytes if held else -note.array.nbytes
                note.held = held
            note.checked = end
        return self._bytes

    def _forget(self, note: _Note) -> None:
        if note.held:
            self._bytes -= note.array.nbytes


def _tensors(attrs: dict) -> Iterator[np.ndarray]:
    for value in attrs.values():
        data = value.data if isinstance(value, GeTensor) else value
        if isinstance(data, np.ndarray):
            yield data


def _holds(op: OpDesc, a: np.ndarray) -> bool:
    """Whether ``op`` is in a graph now and holds ``a`` (a removed node's desc is let go)."""
    return op.node is not None and any(t is a for t in _tensors(op.attrs))
