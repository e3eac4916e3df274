"""A cheap stand-in for the race check, for the end of a host program run without it: which
streams wrote device memory another stream also touched, with nothing ordering the two (a
model's own streams are GE's to order, and the race check's to judge). Accesses split into
epochs at each host synchronize and free (what was queued before is done, or its bytes gone,
before anything queued after); a stream recording an event (or notify) that another waits on
orders the first before the second. Two such streams with no path either way get a one-line
hint at the end: the race check (`set race-check on`, `devrun --race-check`) can then say
whether they really race.
Measured on sample_models/devrun, turning the race check on by default would cost about 44%
in the debugger (more than the 25% budget), hence the hint."""
from __future__ import annotations

from itertools import combinations

from npu_emu.scheduler.events import HostSynchronized, SqeSubmitted
from npu_emu.driver.events import MemFree
from npu_emu.scheduler.task import TaskType
from npu_emu.base.trace import TraceEvent

_RECORDS = {TaskType.EVENT_RECORD: "event", TaskType.NOTIFY_RECORD: "notify"}
_WAITS = {TaskType.STREAM_WAIT_EVENT: "event", TaskType.NOTIFY_WAIT: "notify"}


class UnorderedWrites:
    def __init__(self) -> None:
        self.epoch = 0
        # epoch -> stream -> (ranges it wrote, ranges it read)
        self.access: dict[int, dict[int, tuple[list, list]]] = {}
        # (event|notify, id) -> the streams recording it, and those waiting on it (a wait may
        # be queued before its record: a topological executor does that)
        self.recorders: dict[tuple[str, int], set[int]] = {}
        self.waiters: dict[tuple[str, int], set[int]] = {}

    def __call__(self, ev: TraceEvent) -> None:
        if isinstance(ev, (HostSynchronized, MemFree)):   # a free: the bytes' next use is new
            self.epoch += 1
        elif isinstance(ev, SqeSubmitted) and ev.task.stream is not None \
                and ev.task.stream.model is None:
            task, stream = ev.task, ev.task.stream.id
            if task.writes or task.reads:
                writes, reads = self.access.setdefault(self.epoch, {}).setdefault(stream,
                                                                                  ([], []))
                writes += task.writes
                reads += task.reads
            for table, kinds in ((self.recorders, _RECORDS), (self.waiters, _WAITS)):
                kind = kinds.get(task.type)
                if kind is not None:
                    table.setdefault((kind, _sync_id(task, kind)), set()).add(stream)

    def pairs(self) -> list[tuple[int, int]]:
        """Pairs of streams that, in one epoch, touched the same bytes (one writing) with
        nothing ordering them."""
        after: dict[int, set[int]] = {}   # stream -> streams ordered after it
        for key, firsts in self.recorders.items():
            for first in firsts:
                after.setdefault(first, set()).update(self.waiters.get(key, ()))
        found = []
        for streams in self.access.values():
            for a, b in combinations(sorted(streams), 2):
                (wa, ra), (wb, rb) = streams[a], streams[b]
                clash = _overlap(wa, wb + rb) or _overlap(wb, ra)
                if clash and not (_reaches(after, a, b) or _reaches(after, b, a)) \
                        and (a, b) not in found:
                    found.append((a, b))
        return found


def _reaches(after: dict[int, set[int]], a: int, b: int) -> bool:
    seen, todo = {a}, [a]
    while todo:
        for nxt in after.get(todo.pop(), ()):
            if nxt == b:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def _overlap(xs: list[tuple[int, int]], ys: list[tuple[int, int]]) -> bool:
    return any(x < y + ny and y < x + nx for x, nx in xs for y, ny in ys)


def _sync_id(task: object, kind: str) -> int | None:
    return getattr(task, f"{kind}_id", None)
