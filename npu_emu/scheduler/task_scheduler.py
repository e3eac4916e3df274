"""The task scheduler (TS): a deterministic discrete-event simulator of one device.

State: streams (each with its SQ and CQ, sq_cq.py), execution units with free counts
(cost_model.Unit), simulated time in ns. A stream whose head SQE may start is *ready*; the ready
streams start in order of (priority, creation), each taking a unit if its SQE needs one, and an
SQE in flight retires at start + duration. ``step()`` retires exactly one SQE; host waits loop
until what they wait for is done. Nothing here reads the wall clock, so a re-run lands on the
same tick and the same ns. The TS knows a stream, a label and its device only as the protocols
of npu_emu/scheduler/protocols.py (the objects themselves are a floor up, npu_emu/core/), and it
moves an SQ's head only through the SQ's own methods (retire, seek, rewind).

The inner loop (``_advance``) is planned around docs/architecture.md's measured costs: ready
streams and in-flight SQEs are heaps of plain ints (priority|slot, end_ns|slot), event and notify
flags are bytearrays, and trace events are built only when someone observes the bus.
"""
from __future__ import annotations

from dataclasses import dataclass
from heapq import heapify, heappop, heappush
from typing import TYPE_CHECKING, Callable

from npu_emu.base.errors import AclError, FeatureNotSupportedError, TaskFaultError
from npu_emu.base.gc_pause import gc_paused
from npu_emu.scheduler.cost_model import GANG, Unit
from npu_emu.scheduler.events import (EventRecorded, EventWaitBlocked, EventWaitSatisfied,
                                      LabelJumped, NotifyRecorded, NotifyWaitBlocked,
                                      NotifyWaitSatisfied, SqeCompleted, SqeDispatched,
                                      StreamActivated, StreamState, TaskFailed)
from npu_emu.scheduler.task import EFFECT, EVENT_WAIT, NOTIFY_WAIT, Task

if TYPE_CHECKING:
    from npu_emu.base.trace import Keeper
    from npu_emu.scheduler.protocols import SchedDevice, SchedLabel, SchedStream

INACTIVE, IDLE, READY, RUNNING, BLOCKED = (StreamState.INACTIVE, StreamState.IDLE,
                                           StreamState.READY, StreamState.RUNNING,
                                           StreamState.BLOCKED)
SLOT = 0xFFFF
# _advance's outcomes
LIMIT, DRAINED, STALLED, DEADLINE = range(4)


@dataclass(frozen=True, slots=True)
class Retired:
    """What one ``step()`` did: the SQE that retired, where, and when."""

    task: Task
    stream_id: int
    pos: int
    time_ns: int


class TaskScheduler:
    def __init__(self, device: SchedDevice) -> None:
        self.device = device
        self.bus = device.runtime.bus   # re-pointed by Runtime when a snapshot is restored
        self.now = 0
        self.host_now = 0   # the host's clock, kept only by host-scheduled launches (host_issue)
        self.streams: list[SchedStream] = []
        self.retired = 0
        self.last: Task | None = None
        self.last_deadlock: tuple = ()
        self.advancing = False   # inside _advance: a host callback is running
        self._ready: list[int] = []
        self._inflight: list[int] = []
        units = device.cost.units
        self._free = [units.get(u, 0) for u in Unit]   # indexed by Unit value
        self._unit_waiters: list[list[int]] = [[] for _ in self._free]
        self._event_waiters: dict[int, list[SchedStream]] = {}
        self._notify_waiters: dict[int, list[SchedStream]] = {}

    def __getstate__(self) -> dict:
        # The bus and its observers belong to the run (a debugger's gate holds locks): a
        # snapshot leaves it out, and the restoring Runtime points the scheduler at its own.
        return {**self.__dict__, "bus": None}

    def add_stream(self, stream: SchedStream) -> None:
        if len(self.streams) > SLOT:
            raise AclError("too many streams on one device", 207008)
        self.streams.append(stream)

    # -- the loop ------------------------------------------------------------------------------
    def _advance(self, limit: int, watch: SchedStream | None = None,
                 deadline: int | None = None) -> int:
        """Start what can start, retire up to ``limit`` SQEs. Stops early when ``watch`` has
        drained, when nothing is in flight (STALLED) or before passing ``deadline``."""
        if self.advancing:   # a host callback (or a kernel) waiting on the device it runs in
            raise FeatureNotSupportedError(
                "a host callback cannot wait for the device: it runs inside the task "
                "scheduler, which would have to retire the callback's own SQE first")
        self.advancing = True
        bus = self.bus
        observed = bus.observed
        emit = bus.emit
        # A recorder alone on the bus: the two records per SQE are stored here directly (what
        # bus.emit would hand it, without the call; 3 and 2 are the fields after the tick, which
        # the record leaves out but the bus still counts). Who subscribes is read once per
        # advance.
        keep = bus.sole_keeper
        # With no observer to call back (nobody listens, or a recorder alone), a stream whose
        # SQE retires while no other stream is ready dispatches its next SQE straight away
        # (``again``: ``s`` and ``slot`` are still the retired stream's): the ready heap would
        # hand it back first anyway, so the round trip through it is skipped. An observer may
        # look at the heap, so it is kept for them.
        direct = keep is not None or not observed
        again = False
        # ``again`` with a recorder alone: the SQE that retired (``done``) has its tick counted
        # and its record stored with the dispatch record that follows it, in one go; if its
        # stream does not dispatch at once, or something else emits first, it is stored alone.
        done = None
        horizon = (1 << 63) if deadline is None else deadline
        streams, ready, inflight, free = self.streams, self._ready, self._inflight, self._free
        unit_waiters = self._unit_waiters
        push, pop = heappush, heappop
        running, ready_, blocked = RUNNING, READY, BLOCKED
        slot_mask, gang, effect, gated = SLOT, GANG, EFFECT, EVENT_WAIT
        n = 0
        retired = None
        try:
            while True:
                now = self.now
                while True:
                    if again:
                        again = False
                    elif ready:
                        slot = pop(ready) & slot_mask
                        s = streams[slot]
                    else:
                        break
                    q = s.sq
                    h = q.head
                    entries = q.entries
                    if h >= len(entries):
                        self._drained(s)
                        continue
                    t = entries[h]
                    if t.kind >= gated:
                        if done is not None:
                            self._store_completed(keep, done)
                            done = None
                        if not self._gate(s, t):
                            continue
                    u = t.unit
                    if u >= 0:
                        if not free[u]:
                            s.state = blocked
                            s.waiting = t
                            push(unit_waiters[u], s.key)
                            continue
                        free[u] -= 1
                    elif u == gang and not self._gang_acquire(s, t):
                        continue
                    s.state = running
                    end = now + t.duration
                    push(inflight, end << 16 | slot)
                    if keep is not None:
                        if done is None:
                            bus._tick += 1
                            keep((SqeDispatched, 3, t, now, end))
                        else:
                            bus._tick += 2
                            keep((SqeCompleted, 2, done, now, SqeDispatched, 3, t, now, end))
                            done = None
                    elif observed:
                        emit(SqeDispatched, t, now, end)
                if done is not None:
                    self._store_completed(keep, done)
                    done = None
                if n >= limit:
                    return LIMIT
                if not inflight:
                    return STALLED
                key = inflight[0]
                end = key >> 16
                if end > horizon:
                    return DEADLINE
                pop(inflight)
                self.now = end
                slot = key & slot_mask
                s = streams[slot]
                q = s.sq
                t = q.retire()
                u = t.unit
                if u >= 0:
                    free[u] += 1
                    if unit_waiters[u]:
                        self._wake_unit(u)
                elif u == gang:
                    self._gang_release(t)
                if t.kind == effect:
                    try:
                        t.complete(self, s)
                    except Exception as exc:  # a device fault: reported on the stream
                        self._fault(s, t, exc)
                if s.state is running:
                    if ready or not direct:
                        s.state = ready_
                        push(ready, s.key)
                    else:
                        again = True
                s.cq.tail += 1
                n += 1   # added to self.retired when the advance ends
                retired = t
                if keep is not None:
                    if again:
                        done = t
                    else:
                        bus._tick += 1
                        keep((SqeCompleted, 2, t, end))
                elif observed:
                    emit(SqeCompleted, t, end)
                if s is watch and q.head >= len(q.entries):
                    return DRAINED
        finally:
            self.retired += n
            if done is not None:
                self._store_completed(keep, done)
            if again:   # ``s`` retired last, and waits in the heap like any other
                self.make_ready(s)
            self.advancing = False
            if retired is not None:
                self.last = retired

    def _store_completed(self, keep: Keeper, t: Task) -> None:
        """Store the record of ``t``, retired at ``now``, that _advance held back (``done``)."""
        self.bus._tick += 1
        keep((SqeCompleted, 2, t, self.now))

    def _gate(self, s: SchedStream, t: Task) -> bool:
        """May a wait SQE pass? If not, park its stream on the event or notify."""
        if t.kind == EVENT_WAIT:
            flags, ident, waiters = self.device.event_flags, t.event_id, self._event_waiters
        else:
            flags, ident, waiters = self.device.notify_flags, t.notify_id, self._notify_waiters
        if not flags[ident]:
            s.state = BLOCKED
            s.waiting = t
            waiters.setdefault(ident, []).append(s)
            self.bus.emit(EventWaitBlocked if t.kind == EVENT_WAIT else NotifyWaitBlocked,
                          ident, s.id, self.now)
            return False
        if t.kind == NOTIFY_WAIT or t.reset:
            flags[ident] = 0
        s.waiting = None
        self.bus.emit(EventWaitSatisfied if t.kind == EVENT_WAIT else NotifyWaitSatisfied,
                      ident, s.id, self.now)
        return True

    def make_ready(self, s: SchedStream) -> None:
        """Put ``s`` in the ready heap: it has a head SQE to try."""
        s.state = READY
        s.waiting = None
        heappush(self._ready, s.key)

    def _wake_unit(self, u: int) -> None:
        # All waiters re-contend in priority order; the losers park again. Waking only one
        # could strand a freed unit behind a fused task that still lacks another unit.
        waiters = self._unit_waiters[u]
        while waiters:
            self.make_ready(self.streams[heappop(waiters) & SLOT])

    def _gang_acquire(self, s: SchedStream, t: Task) -> bool:
        free = self._free
        for u in t.units:
            if not free[u]:
                s.state = BLOCKED
                s.waiting = t
                heappush(self._unit_waiters[u], s.key)
                return False
        for u in t.units:
            free[u] -= 1
        return True

    def _gang_release(self, t: Task) -> None:
        for u in t.units:
            self._free[u] += 1
            if self._unit_waiters[u]:
                self._wake_unit(u)

    def _drained(self, s: SchedStream) -> None:
        if s.persistent:
            s.state = INACTIVE
            s.sq.rewind()
        else:
            s.state = IDLE
            s.sq.compact()

    def _fault(self, s: SchedStream, t: Task, exc: Exception) -> None:
        # A kernel refuses its arguments with a ValueError whose message says why, for the
        # user (the host executor shows it so too); another exception's class is part of it.
        err = exc if isinstance(exc, AclError) else TaskFaultError(
            str(exc) if type(exc) is ValueError else f"{type(exc).__name__}: {exc}")
        message = f"{t.where()} failed: {err}"
        if s.error is None:   # the first fault sticks until a synchronize reports it
            s.error = TaskFaultError(message, err.code)
        self.device.runtime.report_fault("task", message)
        self.bus.emit(TaskFailed, t, message)

    # -- effects tasks call at retirement ------------------------------------------------------
    def record_event(self, event_id: int, s: SchedStream | None) -> None:
        self.device.event_flags[event_id] = 1
        self.device.event_times[event_id] = self.now
        for waiter in self._event_waiters.pop(event_id, ()):
            self.make_ready(waiter)
        self.bus.emit(EventRecorded, event_id, -1 if s is None else s.id, self.now)

    def record_notify(self, notify_id: int, s: SchedStream | None) -> None:
        dev = self.device
        dev.notify_flags[notify_id] = 1
        dev.notify_counts[notify_id] = dev.notify_counts.get(notify_id, 0) + 1
        for waiter in self._notify_waiters.pop(notify_id, ()):
            self.make_ready(waiter)
        self.bus.emit(NotifyRecorded, notify_id, -1 if s is None else s.id, self.now)

    def activate(self, target: SchedStream, pos: int, by: SchedStream | None) -> None:
        if not target.persistent:
            raise TaskFaultError(f"stream {target.label} is not a model stream; only model "
                                 f"streams are activated")
        if target.state != INACTIVE:
            raise TaskFaultError(f"stream {target.label} is activated while still active "
                                 f"(at SQE {target.sq.head})")
        target.sq.seek(pos)
        self.make_ready(target)
        self.bus.emit(StreamActivated, target.id, pos, -1 if by is None else by.id, self.now)

    def jump(self, s: SchedStream, label: SchedLabel) -> None:
        self.bus.emit(LabelJumped, label.id, s.id, label.stream.id, label.pos, self.now)
        if label.stream is s:
            s.sq.seek(label.pos)
            return
        s.state = INACTIVE   # control moves to the label's stream
        s.sq.rewind()
        self.activate(label.stream, label.pos, s)

    # -- aborting ------------------------------------------------------------------------------
    def abort_streams(self, streams: list[SchedStream]) -> None:
        """Stop these streams where they are (aclmdlRIAbort): in-flight SQEs are dropped and
        their units freed, waits forgotten; the streams end inactive at their start."""
        slots = {s.index for s in streams}
        keep = []
        for key in self._inflight:
            if key & SLOT in slots:
                sq = self.streams[key & SLOT].sq
                t = sq.entries[sq.head]
                for u in (t.units if t.unit == GANG else (t.unit,) if t.unit >= 0 else ()):
                    self._free[u] += 1
            else:
                keep.append(key)
        self._inflight[:] = keep
        heapify(self._inflight)
        self._ready[:] = [k for k in self._ready if k & SLOT not in slots]
        heapify(self._ready)
        for heap in self._unit_waiters:
            heap[:] = [k for k in heap if k & SLOT not in slots]
            heapify(heap)
        for table in (self._event_waiters, self._notify_waiters):
            for ident in list(table):
                table[ident] = [w for w in table[ident] if w.index not in slots]
                if not table[ident]:
                    del table[ident]
        for s in streams:
            s.state = INACTIVE
            s.sq.rewind()
            s.waiting = None
        for u, heap in enumerate(self._unit_waiters):
            if heap and self._free[u]:
                self._wake_unit(u)

    # -- host-facing drives --------------------------------------------------------------------
    def step(self) -> Retired | None:
        """Retire exactly one SQE. None when the device has nothing to do; DeadlockError when
        streams have work but none can progress."""
        if self._advance(1) == STALLED:
            self.raise_if_deadlocked("step")
            return None
        t = self.last
        return Retired(t, t.stream.id, t.pos, self.now)

    def run_until(self, predicate: Callable[[Retired], bool]) -> Retired | None:
        """Step until a retired SQE satisfies ``predicate`` (returned), or the device idles."""
        while (r := self.step()) is not None:
            if predicate(r):
                return r
        return None

    def run(self, waiter: str = "run the device") -> None:
        """Run until nothing is in flight; raise DeadlockError if streams are left blocked."""
        with gc_paused(self.bus):   # an observer may keep an event or two per SQE
            self._advance(1 << 62)
        self.raise_if_deadlocked(waiter)

    def drain(self, s: SchedStream, deadline: int | None = None, waiter: str = "") -> bool:
        """Drive until ``s`` has no pending SQE. False if ``deadline`` (ns) came first."""
        with gc_paused(self.bus):   # as in run()
            while not stream_done(s):
                status = self._advance(1 << 62, s, deadline)
                if status == DEADLINE or (status == STALLED and deadline is not None):
                    self.now = max(self.now, deadline)
                    return False
                if status == STALLED and not stream_done(s):
                    raise self.device.deadlock_error(waiter or f"synchronize stream {s.label}")
        return True

    def host_issue(self, cost_ns: int) -> int:
        """The host issues one task, spending ``cost_ns`` of simulated time (the cost model's
        ``host_launch_ns``) while the device runs on: the device is first driven to the host's
        new time, so what the host submits next starts no earlier. The host's clock never runs
        behind the device's (a host wait leaves the host at the device's time). Returns it."""
        self.host_now = max(self.host_now, self.now) + cost_ns
        if self.host_now > self.now:
            self._advance(1 << 62, None, self.host_now)
            self.now = max(self.now, self.host_now)
        return self.host_now

    def wait_for_slot(self, s: SchedStream) -> None:
        """The host blocks on a full SQ until the TS retires one of its SQEs."""
        sq = s.sq
        while sq.pending >= sq.depth:
            if self._advance(1) == STALLED and sq.pending >= sq.depth:
                raise self.device.deadlock_error(f"submit to the full SQ of stream {s.label}")

    def run_until_flag(self, flags: bytearray, ident: int, what: str) -> None:
        while not flags[ident]:
            if self._advance(1) == STALLED and not flags[ident]:
                raise self.device.deadlock_error(f"wait for {what}")

    def raise_if_deadlocked(self, waiter: str) -> None:
        if any(s.state == BLOCKED for s in self.streams):
            raise self.device.deadlock_error(waiter)


def stream_done(s: SchedStream) -> bool:
    if s.persistent:
        return s.state == INACTIVE
    return s.sq.head >= len(s.sq.entries) and s.state != RUNNING
