"""Race detector: happens-before over stream order, events, notifies, activations and host
synchronisation, checked against the device memory each task reads and writes.

Each actor (a stream, or the host) has a vector clock. A stream ticks its own entry as each
SQE starts (so the effects of its retirement carry it); an event or notify record carries the
recorder's clock to the waiter; a stream activation carries the activator's; a task inherits
the host's clock at submission; a host synchronize joins the stream's clock into the host's.
Two accesses to overlapping bytes, at least one a write, by different actors with neither
ordered before the other, are a race.
The verdict depends on the orderings the program makes, not on the order this run's scheduler
happened to pick, so the same bug is found whichever stream ran first.

It is a trace observer (opt-in: ``Runtime.enable_race_check``), so it costs nothing when off.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Protocol

from npu_emu.base.trace import TraceEvent
from npu_emu.driver.events import HostMemAccess, MemFree
from npu_emu.scheduler.events import (EventRecorded, EventWaitSatisfied, HostSynchronized,
                                      NotifyRecorded, NotifyWaitSatisfied, SqeCompleted,
                                      SqeDispatched, SqeSubmitted, StreamActivated)

if TYPE_CHECKING:
    from npu_emu.driver.memory import DeviceMemory

HOST = -1
Clock = dict[int, int]


class HasMemory(Protocol):
    memory: DeviceMemory


class Watched(Protocol):
    """What the detector needs of the runtime it watches (npu_emu/runtime.py, a floor above):
    the devices' memories, to find an address's allocation, and where to report a race."""

    devices: Mapping[int, HasMemory]

    def report_fault(self, kind: str, message: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Access:
    actor: int
    clock: int
    start: int
    end: int
    write: bool
    who: str     # "Add (task 3, SQE 1 of stream 2)" or "the host (memcpy)"


@dataclass(frozen=True, slots=True)
class Race:
    """Two unordered accesses, named in a fixed order (the run's schedule does not show)."""

    first: str
    second: str
    addr: int
    nbytes: int

    @property
    def message(self) -> str:
        return (f"{self.first} and {self.second} both touch [{self.addr:#x}, +{self.nbytes}), "
                f"at least one writing, and no event, notify or sync orders them")


def _join(into: Clock, other: Clock) -> None:
    for actor, c in other.items():
        if into.get(actor, 0) < c:
            into[actor] = c


class RaceDetector:
    def __init__(self, runtime: Watched) -> None:
        self.runtime = runtime
        self.races: list[Race] = []
        self._clocks: dict[int, Clock] = {HOST: {HOST: 1}}
        self._sync: dict[tuple[str, int], Clock] = {}     # (event|notify, id) -> recorder's clock
        self._submitted: dict[int, Clock] = {}            # task id -> host clock at submission
        self._shadow: dict[int, list[Access]] = {}        # allocation start -> accesses
        self._reported: set[tuple[str, str]] = set()      # membership only, never iterated

    def _clock(self, actor: int) -> Clock:
        clock = self._clocks.get(actor)
        if clock is None:
            clock = self._clocks[actor] = {actor: 0}
        return clock

    def __call__(self, ev: TraceEvent) -> None:
        if isinstance(ev, SqeCompleted):
            self._retired(ev)
        elif isinstance(ev, SqeDispatched):
            self._started(ev)
        elif isinstance(ev, SqeSubmitted):
            self._submitted[ev.task.task_id] = dict(self._clocks[HOST])
        elif isinstance(ev, (EventRecorded, NotifyRecorded)):
            kind = "e" if isinstance(ev, EventRecorded) else "n"
            ident = ev.event_id if kind == "e" else ev.notify_id
            self._sync[(kind, ident)] = dict(self._clock(ev.stream_id))
        elif isinstance(ev, (EventWaitSatisfied, NotifyWaitSatisfied)):
            kind = "e" if isinstance(ev, EventWaitSatisfied) else "n"
            ident = ev.event_id if kind == "e" else ev.notify_id
            _join(self._clock(ev.stream_id), self._sync.get((kind, ident), {}))
        elif isinstance(ev, StreamActivated):
            _join(self._clock(ev.stream_id), self._clock(ev.by_stream))
        elif isinstance(ev, HostSynchronized):
            _join(self._clocks[HOST], self._clock(ev.stream_id))
        elif isinstance(ev, HostMemAccess):
            self._host_access(self._block(ev.addr), ev.addr, ev.nbytes, ev.write,
                              "the host (synchronous memcpy)")
        elif isinstance(ev, MemFree):   # the block is gone already: its start is the key
            self._host_access(ev.addr, ev.addr, ev.size, True, "the host (free)")
            self._shadow.pop(ev.addr, None)

    def _host_access(self, block: int | None, addr: int, nbytes: int, write: bool,
                     who: str) -> None:
        host = self._clocks[HOST]
        host[HOST] += 1
        self._access(block, HOST, host, addr, nbytes, write, who)

    def _started(self, ev: SqeDispatched) -> None:
        t = ev.task
        clock = self._clock(t.stream.id)
        submitted = self._submitted.pop(t.task_id, None)
        if submitted is not None:
            _join(clock, submitted)
        clock[t.stream.id] += 1

    def _retired(self, ev: SqeCompleted) -> None:
        t = ev.task
        actor = t.stream.id
        clock = self._clock(actor)
        if t.reads or t.writes:
            who = t.where()
            for addr, n in t.reads:
                self._access(self._block(addr), actor, clock, addr, n, False, who)
            for addr, n in t.writes:
                self._access(self._block(addr), actor, clock, addr, n, True, who)

    def _access(self, block: int | None, actor: int, clock: Clock, addr: int, nbytes: int,
                write: bool, who: str) -> None:
        if block is None or nbytes <= 0:
            return
        end = addr + nbytes
        records = self._shadow.setdefault(block, [])
        kept = []
        for a in records:
            if a.start < end and addr < a.end and (write or a.write) and a.actor != actor \
                    and clock.get(a.actor, 0) < a.clock:
                self._report(a, who, max(a.start, addr), min(a.end, end))
            # a write supersedes this actor's older accesses inside it, a read its older reads:
            # any later race with those would also be one with this access
            if not (a.actor == actor and addr <= a.start and a.end <= end
                    and (write or not a.write)):
                kept.append(a)
        kept.append(Access(actor, clock[actor], addr, end, write, who))
        self._shadow[block] = kept

    def _block(self, addr: int) -> int | None:
        for device in self.runtime.devices.values():
            block = device.memory.block_of(addr)
            if block is not None:
                return block
        return None

    def _report(self, earlier: Access, who: str, start: int, end: int) -> None:
        key = (earlier.who, who)
        if key in self._reported:
            return
        self._reported.add(key)
        first, second = sorted((earlier.who, who))
        race = Race(first, second, start, end - start)
        self.races.append(race)
        self.runtime.report_fault("race", race.message)
