"""The one trace bus (docs/architecture.md invariant 2).

Everything a user can watch is a typed event with a global tick. The engine emits; observers
(breakpoints, the TUI, the recorder, the race detector) subscribe. With no observer an emit is one
truth test and no event object is built, so hot loops can emit freely.

Event classes live next to the code that emits them (the IR's mutation events in ge_core, the
scheduler's SQE events here); they only need to subclass ``TraceEvent``. The bus of the run in
progress is the current World's (npu_emu/world.py: ``current_bus()``).
"""
from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Callable, Iterator

Observer = Callable[["TraceEvent"], None]
# An observer's stand-in for its events of a class: handed each one's tick and fields (in the
# order the class declares them) instead of the event, which is built only if it answers true,
# for the observer's ``then`` (TraceBus.hear_only).
Receiver = Callable[..., bool]
# Whether an observer needs the events of a class, or its receiver of them (TraceBus.hear_only).
Hears = Callable[[type], "bool | Receiver"]
# A keeper stores an event's record, (event class, n, *n fields), or a mark: see TraceBus.
Keeper = Callable[[tuple], None]


# Held to make a bus's filter (``_needed``), which threads other than the emitting one do: a
# face's, an evaluating one's. Rare, and one lock for every bus keeps a bus a plain copyable
# object.
_FILTERING = threading.Lock()


@dataclass(frozen=True, slots=True)
class TraceEvent:
    tick: int

    @property
    def kind(self) -> str:
        return type(self).__name__

    def describe(self) -> str:
        """One line, stable across runs: the basis of trace hashes and transcripts."""
        body = " ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)[1:])
        return f"{self.tick} {self.kind} {body}".rstrip()


class TraceBus:
    """Observers are called in subscription order; ticks count the events anyone saw.

    A TraceRecorder subscribes as a *keeper*: before any observer runs, it is handed the event
    as a record, ``(event class, n, *fields)`` with ``n`` the number of fields after the tick,
    which it stores flat and makes into the event only when its events are read. Building a
    frozen event costs several times what storing its fields does, and a recorder on a long run
    keeps hundreds of thousands (two per SQE) that nobody may read. The tick is left out: a
    keeper is handed every event from its subscription on, so each record's tick is the one
    before it plus one, counted from a *mark*, ``(None, tick)``, that the bus hands it when it
    subscribes and whenever the tick is set (a re-run restored at a checkpoint's tick). Storing
    the tick would keep a new int per event alive.

    ``_tick`` is the tick itself: ``emit`` and the one hot loop that stores records without it
    (the task scheduler's, see ``sole_keeper``) advance it by one per event.

    An observer may say it needs only some classes of event (``hear_only``): a debugger's gate
    whose stops hear no graph edit. While it is the only observer, an event of another class is
    counted (and handed to keepers) but never built: building one costs several times what
    the rest of its emit does, and graph edits are about half of ResNet-50's compile events.
    For a class it needs, it may give a *receiver* instead, handed the tick and fields: a gate
    whose checks of that class read only the fields (stepping a pass of a 20k-node graph hears
    85k node visits, and building them was a quarter of what the gate cost). The few it answers
    true for are built for the observer's ``then``: a gate parks on them, its checks already
    made."""

    __slots__ = ("_observers", "_keepers", "_parking", "_heard", "_tick", "sole_keeper",
                 "_hears", "_needed", "_whole", "work")

    def __init__(self) -> None:
        self._observers: tuple[Observer, ...] = ()
        self._keepers: tuple[Keeper, ...] = ()
        self._parking: tuple[Observer, ...] = ()
        self._heard = False   # anyone subscribed: the one check an unheard emit costs
        self._tick = 0
        # The keeper's store when it is all that subscribes: a hot loop (the task scheduler's)
        # that finds it set stores its records itself, without a call to ``emit``.
        self.sole_keeper: Keeper | None = None
        self._hears: dict[Observer, tuple[Hears, Observer]] = {}   # with their ``then``
        self._needed: _Needed | None = None   # the only observer's, if it has one: see emit
        self._whole = 0   # threads inside ``whole_events``
        # Work done between events, in units of about one node visit's: a pass that walks the
        # whole graph in one event (a pattern fusion) says so here. Not part of the trace: the
        # debugger spaces its checkpoints by tick + work, as ticks alone undercount such a pass
        # (docs/architecture.md, One world per run).
        self.work = 0

    def subscribe(self, observer: Observer, parks: bool = False) -> None:
        """``parks``: the observer may block the emitting thread (a debugger's step gate)."""
        if isinstance(observer, TraceRecorder) and not parks:
            self._keepers = self._keepers + (observer.keep,)
            observer.keep((None, self._tick))
        else:
            self._observers = self._observers + (observer,)
        if parks:
            self._parking = self._parking + (observer,)
        self._note_subscribers()

    def unsubscribe(self, observer: Observer) -> None:
        # ==, not is: a bound method is a new object at each attribute access.
        if isinstance(observer, TraceRecorder):
            self._keepers = tuple(k for k in self._keepers if k != observer.keep)
        self._observers = tuple(o for o in self._observers if o != observer)
        self._parking = tuple(o for o in self._parking if o != observer)
        self._hears.pop(observer, None)
        self._note_subscribers()

    def hear_only(self, observer: Observer, hears: Hears | None,
                  then: Observer | None = None) -> None:
        """From now on ``observer`` needs only the events of the classes ``hears`` says (None:
        every event); while it is the only observer, an event of a class ``hears`` gives a
        receiver for goes to that receiver instead, unbuilt, and is built only if the receiver
        answers true, for ``then`` (default: the observer). Safe from any thread: the filter
        ``emit`` reads at every event is replaced by one attribute store."""
        if hears is None:
            self._hears.pop(observer, None)
        else:
            self._hears[observer] = (hears, then or observer)
        # only the filter: rewriting what subscribing sets (_heard, sole_keeper) from here
        # could undo a subscription the worker makes meanwhile (an interrupt from the UI)
        self._refilter()

    @contextmanager
    def whole_events(self) -> Iterator[None]:
        """Inside, no receiver is handed anything: every event an observer needs is built and
        handed to it (a debugger evaluating in a parked frame, whose gate must see each event
        to let it pass, where a receiver would have checked it)."""
        with _FILTERING:   # two threads' counts never crossed
            self._whole += 1
        self._refilter()
        try:
            yield
        finally:
            with _FILTERING:
                self._whole -= 1
            self._refilter()

    def _note_subscribers(self) -> None:
        self._heard = bool(self._observers or self._keepers)
        alone = len(self._keepers) == 1 and not self._observers
        self.sole_keeper = self._keepers[0] if alone else None
        self._refilter()

    def _refilter(self) -> None:
        """The filter ``emit`` reads, made again from what is heard now. Each is read and
        stored under the lock, after the change that asked for it: whichever thread stores
        last read every change made before it."""
        with _FILTERING:
            observers = self._observers   # one snapshot: another thread may subscribe
            heard = self._hears.get(observers[0]) if len(observers) == 1 else None
            self._needed = _Needed(*heard, received=not self._whole) if heard is not None \
                else None

    @property
    def tick(self) -> int:
        """The tick of the last event emitted (0 before the first)."""
        return self._tick

    @tick.setter
    def tick(self, tick: int) -> None:
        self._tick = tick
        for keep in self._keepers:   # they count their records' ticks on from here
            keep((None, tick))

    @property
    def observed(self) -> bool:
        return self._heard

    @property
    def may_park(self) -> bool:
        """Whether an emit may block its thread while others run (see base/gc_pause.py)."""
        return bool(self._parking)

    def emit(self, event_cls: type[TraceEvent], *args: Any) -> None:
        if not self._heard:
            return
        self._tick = tick = self._tick + 1
        keep = self.sole_keeper
        if keep is not None:   # a recorder alone, the usual way to record: no loops to run
            keep((event_cls, len(args)) + args)
            return
        if self._keepers:
            record = (event_cls, len(args)) + args
            for keep in self._keepers:
                keep(record)
        if self._observers:
            needed = self._needed
            if needed is not None:
                how = needed[event_cls]
                if how is not True:
                    # the only observer's receiver: the event built only if it asks
                    if how is not False and how(tick, *args):
                        needed.then(event_cls(tick, *args))
                    return
            event = event_cls(tick, *args)
            for observer in self._observers:
                observer(event)


class _Needed(dict):
    """Event class -> whether the only observer needs its events, or its receiver of them:
    asked once per class."""

    __slots__ = ("_hears", "then", "_received")

    def __init__(self, hears: Hears, then: Observer, received: bool) -> None:
        super().__init__()
        self._hears, self.then = hears, then   # then: what the events receivers ask for go to
        self._received = received              # False: no receiver, every event needed built

    def __missing__(self, event_cls: type) -> bool | Receiver:
        hears = self._hears(event_cls)
        if callable(hears):
            needed = self[event_cls] = hears if self._received else True
        else:
            needed = self[event_cls] = bool(hears)
        return needed


class TraceRecorder:
    """An observer that keeps every event; its hash fingerprints a run (invariant 1).

    On a bus it is a keeper (see TraceBus): the records it is handed are stored end to end in
    one list, which holds no object per event (so the cyclic collector has none to scan), and
    become events, in order, the first time ``events`` is read after they arrived, each with
    the tick after the one before it (or after a mark's)."""

    __slots__ = ("_events", "_records", "_tick", "keep")

    def __init__(self) -> None:
        self._events: list[TraceEvent] = []
        self._records: list[Any] = []   # records not yet made events, end to end
        self._tick = 0                  # of the last record made an event
        self.keep: Keeper = self._records.extend

    @property
    def events(self) -> list[TraceEvent]:
        records = self._records
        if records:
            made, i, end, tick = self._events, 0, len(records), self._tick
            while i < end:
                cls, n = records[i], records[i + 1]
                if cls is None:   # a mark: n is the tick the next record follows
                    tick = n
                    i += 2
                    continue
                tick += 1
                made.append(cls(tick, *records[i + 2:i + 2 + n]))
                i += 2 + n
            self._tick = tick
            del records[:end]   # not clear(): what another thread stored meanwhile stays
        return self._events

    def __call__(self, event: TraceEvent) -> None:
        """Keep an event made elsewhere (the recorder called as a plain observer)."""
        self.events.append(event)

    def digest(self) -> str:
        h = hashlib.sha256()
        for event in self.events:
            h.update(event.describe().encode())
            h.update(b"\n")
        return h.hexdigest()
