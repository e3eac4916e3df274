"""The graph's undo journal: how a debugger goes back to a checkpoint without copying the graph.

A checkpoint of a compile used to be a copy of every node, desc and anchor (17 objects a node,
1.5M at 40k nodes: 1.7 s to make and as long to restore). With a journal, a checkpoint is a
``mark``: from then on, the first write to each graph object (a node, its op desc, an anchor, a
graph, the edit counts) saves the object's state as it was, once per mark. Going back to the
mark (``rewind``) puts those states back, newest first, so the live objects are as they were at
the mark: it costs what changed since, not what exists. What a compile holds besides the graph
(a walk's queue, the pipeline's records) is copied at the mark as before, sharing the graph
objects (``SHARED`` in a deep copy's memo: their ``__deepcopy__`` returns them).

Every write to a graph object goes through ``touch(obj)`` first: the objects' own methods do
(OpDesc.set_attr, OpDesc.set_output_name, Node.add_input, the anchors' link and unlink,
ComputeGraph.add_node, ComputeGraph.set_parent, ...). One part of an object may be *logged*
instead, change by change (``logged``): a graph's node table, which saved whole would copy every
node's entry at the first edge edit after each mark (the root's 25k entries, 1.4k ticks apart
in a 20k-node walk). An object with a logged part gives a rewind's ``keep`` its whole state by
``_whole``. ``tests/debugger/test_journal.py`` rewinds whole compiles mark by mark and compares
every object with what it was, so a write that skips ``touch`` fails it.

The journal in force is the thread's (``journaling``): the debugger's worker for the current
run records; a side run, or no debugger at all, records nothing, and a touch is then one test of
a count of the journals recording.
"""
from __future__ import annotations

import copy
import copyreg
import itertools
from array import array
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Protocol

import numpy as np

SHARED = "journal.shared"   # a deep-copy memo holding this key shares the graph objects
JOURNALED: set[type] = set()   # the classes whose writes are journaled (``journaled``)
_epochs = itertools.count(1)   # 0: an object made with no journal in force
_NEVER = 1 << 62   # the epoch a mark began, for one the journal did not make: none
BIRTH = _NEVER   # the birth epoch noted beside a birth's entry: none puts it back (Dropped frees)
NOT_SAVED = -1   # the epoch of the save before a logged change or a birth: none to skip it for


class Journaled(Protocol):
    _jep: int   # the epoch whose first write saved it (or in which it was made)
    _jb: int    # the epoch it was made in (0: with no journal in force, or a copy)

    def _saved(self) -> Any: ...

    def _restore(self, state: Any) -> None: ...   # takes the state's lists and dicts


class Cyclic(Journaled, Protocol):   # a node or a graph: its birth is noted
    def _unborn(self) -> None: ...   # rewound past its birth: its cycles broken, untouched


class Journal:
    """The saved states since the oldest mark held, in the order they were saved."""

    def __init__(self) -> None:
        self.epoch = next(_epochs)
        self._log: list[tuple[Journaled, Any]] = []
        # Beside the log, for each entry: its object's birth epoch (BIRTH for a birth's entry),
        # and the epoch of the object's save before this one (its _jep then; NOT_SAVED for a
        # birth, or a logged change to a part its saved state does not hold). A rewind finds
        # what to put back in these alone, without reading the objects it skips (see rewind).
        self._born_in = array("q")
        self._saved_in = array("q")
        self._base = 0   # the absolute index of _log[0] (older entries were dropped)
        self._closed = 0   # the absolute index where the epoch under way began
        self._marked = False   # before the first mark nothing is worth saving
        self._epoch_at: dict[int, int] = {}   # a mark -> the epoch it began (the last, if two)

    def __len__(self) -> int:
        """The states saved and held."""
        return len(self._log)

    @property
    def start(self) -> int:
        """The absolute index of the oldest entry held (``entries[i]`` is entry start + i)."""
        return self._base

    @property
    def closed(self) -> int:
        """The absolute index past the entries of the epochs that are over (ended by a mark, a
        rewind or a redo): an object those entries saved is saved again at its next write."""
        return self._closed

    @property
    def entries(self) -> list[tuple[Journaled, Any]]:
        """The entries held, oldest first: (object, its saved state, a logged change's undo,
        or None for a birth). Read-only by convention (to size them)."""
        return self._log

    def save(self, obj: Journaled) -> None:
        before, obj._jep = obj._jep, self.epoch
        if self._marked:
            self._log.append((obj, obj._saved()))
            self._born_in.append(obj._jb)
            self._saved_in.append(before)

    def log(self, obj: Journaled, undo: Any, covered: bool = False) -> None:
        """``obj`` has just changed in a way ``obj._restore(undo)`` takes back (``logged``).
        Not for an object made in this epoch: every mark before the change is before its birth,
        so no rewind puts it back (Partition's engine subgraphs' node tables). ``covered``: the
        change is to a part the object's saved state holds, so a state saved before it since a
        mark makes it moot, as a later save would be."""
        if self._marked and obj._jb != self.epoch:
            self._log.append((obj, undo))
            self._born_in.append(obj._jb)
            self._saved_in.append(obj._jep if covered else NOT_SAVED)

    def mark(self) -> int:
        """A point to rewind to: every object is saved again at its next write."""
        self._marked = True
        self.epoch = next(_epochs)
        self._closed = self._base + len(self._log)
        self._epoch_at[self._closed] = self.epoch
        return self._closed

    def born(self, obj: Cyclic) -> int:
        """``obj`` (a node or a graph) is made now: after a mark, noted (a rewind past its
        birth breaks its reference cycles, so reference counting frees it at once)."""
        if self._marked:
            self._log.append((obj, None))
            self._born_in.append(BIRTH)
            self._saved_in.append(NOT_SAVED)
        return self.epoch

    def rewind(self, mark: int, keep: bool = False, drops: list | None = None) -> "Redo | None":
        """Put every object back as it was at ``mark``; the states saved since are dropped
        (the marks after it are gone), and the nodes and graphs made since are discarded.
        With ``keep``, nothing is discarded, and a Redo returns to the present. With ``drops``,
        what is discarded (the states saved since, the objects made since) goes into it as a
        ``Dropped``, freed when the caller likes: a debugger shows the stop first.

        An object made since the mark is not put back: nothing as it was at the mark reaches
        it (a rewind past Partition skips the engine subgraphs, their PlaceHolders, Ends and
        constants' copies, and the anchors and descs made with them)."""
        start = mark - self._base
        if start < 0:
            raise ValueError(f"journal mark {mark} was dropped")
        # The entries since the mark leave the log: whichever part of it is shorter is copied
        # (a rewind to a mark far back keeps the rest; past Partition at 1M ticks, 150k entries
        # kept of 565k), the other taken as it is. A kept rewind's Redo holds the tail alone.
        log = self._log
        if keep or start >= len(log) - start:
            tail, base = log[start:], 0
            del log[start:]
        else:
            self._log, tail, base = log[:start], log, start
        born_in, saved_in = self._born_in[start:], self._saved_in[start:]
        del self._born_in[start:], self._saved_in[start:]
        # With keep, each object's present state, once, in the order the tail first names them;
        # those with a logged part (the graphs) last: a graph's redo asks whether a node that
        # left its table lives on in another (ComputeGraph._restore), which the node's own
        # present state says
        now: list[tuple[Journaled, Any]] = []
        if keep:
            graphs = []
            for obj in {id(obj): obj for obj, _ in tail}.values():
                whole = getattr(obj, "_whole", None)
                if whole is None:
                    now.append((obj, obj._saved()))
                else:
                    graphs.append((obj, whole()))
            now += graphs
        # The entries to put back, newest first, found in the epochs alone (reading each
        # skipped entry's object cost a cache miss apiece): not a birth, not an object made
        # since the mark (nothing as it was then reaches it), and not a state saved since the
        # mark after another of the same object (the oldest is the one that counts; past
        # Partition at 40k nodes, 25k op descs were saved twice).
        born, before = np.frombuffer(born_in, np.int64), np.frombuffer(saved_in, np.int64)
        since = self._epoch_at.get(mark, _NEVER)
        put_back = np.flatnonzero((born < since) & (before < since))[::-1]
        for i, was in zip((put_back + base).tolist(), before[put_back].tolist()):
            obj, state = tail[i]   # a restore takes the state's containers: a kept tail is
            obj._restore(state)    # only read (cloned) before the redo
            if not keep:   # its last save held is older now: the next write saves it again,
                obj._jep = was   # and a later rewind knows its states since are not the first
        del born, before
        if not keep:   # the marks after it are gone (a redo brings them back)
            self._epoch_at = {m: e for m, e in self._epoch_at.items() if m <= mark}
            dropped = Dropped(tail, base)
            if drops is None:
                dropped.free()
            else:
                drops.append(dropped)
        self.epoch = next(_epochs)
        self._closed = mark
        return Redo(mark, tail, born_in, saved_in, now) if keep else None

    def redo(self, redo: "Redo") -> None:
        """Back to where ``rewind`` was called from: what ran since the rewind undone, then the
        objects as they were then, and the marks made before it good again."""
        marks = self._epoch_at
        self.rewind(redo.mark)
        self._epoch_at = marks
        for obj, state in redo.now:
            obj._restore(state)
        self._log.extend(redo.tail)
        self._born_in.extend(redo.born_in)
        self._saved_in.extend(redo.saved_in)
        self.epoch = next(_epochs)
        self._closed = self._base + len(self._log)

    def drop_before(self, mark: int) -> None:
        """Forget the states saved before ``mark``: no rewind goes further back."""
        cut = mark - self._base
        if cut > 0:
            del self._log[:cut], self._born_in[:cut], self._saved_in[:cut]
            self._base = mark
            self._epoch_at = {m: e for m, e in self._epoch_at.items() if m >= mark}


class Dropped:
    """What a rewind discarded: the states saved since its mark, and the nodes and graphs made
    since, reached from nothing live. ``free`` breaks those objects' cycles and lets go of it
    all, so reference counting frees it (past Partition: its engine subgraphs, their boundary
    nodes and constants' copies), on any thread: nothing live reaches it. The births are found
    here, not by the rewind: reading them is work the stop need not wait for."""
    __slots__ = ("states", "start")

    def __init__(self, states: list, start: int = 0) -> None:
        self.states, self.start = states, start   # states[start:] are the rewind's

    def free(self) -> None:
        states = self.states
        for i in range(len(states) - 1, self.start - 1, -1):
            obj, state = states[i]
            if state is None:   # a birth
                obj._unborn()
        self.states = []


class Redo:
    __slots__ = ("mark", "tail", "born_in", "saved_in", "now")

    def __init__(self, mark: int, tail: list, born_in: array, saved_in: array,
                 now: list) -> None:
        self.mark, self.tail, self.born_in, self.saved_in, self.now = \
            mark, tail, born_in, saved_in, now


_active: ContextVar[Journal | None] = ContextVar("ge_core.journal", default=None)


_recording = 0   # journals recording in some thread: with none (no debugger), a touch is a test


@contextmanager
def journaling(journal: Journal | None) -> Iterator[None]:
    """Record this thread's graph writes into ``journal`` (None: record none) meanwhile."""
    global _recording
    token = _active.set(journal)
    _recording += journal is not None
    try:
        yield
    finally:
        _recording -= journal is not None
        _active.reset(token)


def touch(obj: Journaled) -> None:
    """``obj`` is about to be written: save it first, if a journal records and it has not been
    saved since the last mark."""
    if _recording:
        journal = _active.get()
        if journal is not None and obj._jep != journal.epoch:
            journal.save(obj)


def logged(obj: Journaled, undo: Any) -> None:
    """``obj`` has just changed in a way ``obj._restore(undo)`` takes back: logged at every
    change, not saved once a mark, for a part of an object too big to copy at each mark whose
    changes are small (a graph's node table: a node added or removed)."""
    if _recording:
        journal = _active.get()
        if journal is not None:
            journal.log(obj, undo)


def noted(obj: Journaled, undo: Callable[..., Any], *args: Any) -> None:
    """``obj`` is about to change in a part its saved state holds, in a way ``undo(*args)``
    (made only if a journal records) takes back: a change too small to be worth a whole
    saved state (a desc's node), logged as such (``covered``: see Journal.log) unless ``obj``
    was saved in this epoch already, as ``touch`` would save it."""
    if _recording:
        journal = _active.get()
        if journal is not None and obj._jep != journal.epoch:
            journal.log(obj, undo(*args), covered=True)


def stamp(cyclic: Any = None) -> int:
    """The ``_jep`` of an object made now: no state before it to save until the next mark.
    The birth of a ``cyclic`` one (a node, a graph) is noted (Journal.born)."""
    journal = _active.get() if _recording else None
    if journal is None:
        return 0
    return journal.epoch if cyclic is None else journal.born(cyclic)


def journaled(cls: type) -> type:
    """Class decorator: ``cls`` keeps the journal's protocol (``_jep``, ``_saved``,
    ``_restore``, and a touch before every write), so a copy whose memo holds SHARED shares
    its instances instead of copying them."""
    JOURNALED.add(cls)
    cls.__deepcopy__ = shared_or_copied
    return cls


def shared_or_copied(obj: Any, memo: dict) -> Any:
    """A graph object's ``__deepcopy__``: itself in a copy that shares the graph (``SHARED``),
    else a copy of each slot's (and __dict__'s) value, as copy.deepcopy makes of a plain
    object."""
    if SHARED in memo:
        return obj
    cls = type(obj)
    new = cls.__new__(cls)
    memo[id(obj)] = new
    for name in fields_of(obj):
        setattr(new, name, copy.deepcopy(getattr(obj, name), memo))
    return new


def fields_of(obj: Any) -> list[str]:
    """The names of the attributes ``obj`` has set: its slots' (every class's, but __dict__
    and __weakref__) and its __dict__'s."""
    names = [name for name in copyreg._slotnames(type(obj)) if hasattr(obj, name)]
    return names + list(vars(obj)) if hasattr(obj, "__dict__") else names
