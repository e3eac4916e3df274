"""The device timeline as Chrome Trace Event JSON (opens in Perfetto or chrome://tracing).

A trace observer: device -> pid; each stream -> a tid, and each execution unit's lanes -> more
tids (a task that ran on an AI Core shows on its stream and on the core lane it used); every
SQE -> a complete ("X") event; an event record -> the wait it satisfied -> a flow arrow.
Times are simulated ns, written as the format's microseconds.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.events import EventRecorded, EventWaitSatisfied, SqeDispatched

UNIT_TID = 100_000   # unit lanes after every stream tid


class Timeline:
    def __init__(self) -> None:
        # (device, stream, unit, name, type, task id, start ns, end ns)
        self.slices: list[tuple[int, int, int, str, int, int, int, int]] = []
        self.flows: list[tuple[int, int, int, int, int]] = []   # event, rec stream/ns, wait s/ns
        self._device_of: dict[int, int] = {}
        self._records: dict[int, tuple[int, int]] = {}

    def __call__(self, ev: TraceEvent) -> None:
        if isinstance(ev, SqeDispatched):
            t = ev.task
            device = t.stream.device.id
            self._device_of[t.stream.id] = device
            self.slices.append((device, t.stream.id, t.unit, t.name, int(t.type), t.task_id,
                                ev.time_ns, ev.end_ns))
        elif isinstance(ev, EventRecorded):
            self._records[ev.event_id] = (ev.stream_id, ev.time_ns)
        elif isinstance(ev, EventWaitSatisfied):
            rec = self._records.get(ev.event_id)
            if rec is not None:
                self.flows.append((ev.event_id, rec[0], rec[1], ev.stream_id, ev.time_ns))

    def to_chrome(self) -> dict[str, Any]:
        out: list[dict[str, Any]] = []
        named: set[tuple[int, int]] = set()   # membership only

        def thread(pid: int, tid: int, name: str) -> None:
            if (pid, tid) not in named:
                named.add((pid, tid))
                out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                            "args": {"name": name}})

        for device in sorted(set(self._device_of.values())):
            out.append({"ph": "M", "name": "process_name", "pid": device,
                        "args": {"name": f"NPU {device}"}})
        lanes: dict[tuple[int, int], list[int]] = {}   # (device, unit) -> each lane's free ns
        for device, stream, unit, name, ttype, task_id, start, end in \
                sorted(self.slices, key=lambda s: (s[6], s[5])):
            args = {"task_id": task_id, "type": ttype, "stream": stream}
            thread(device, stream, f"stream {stream}")
            out.append(_slice(name, device, stream, start, end, args))
            if unit >= 0:
                free = lanes.setdefault((device, unit), [])
                lane = next((i for i, t in enumerate(free) if t <= start), len(free))
                free[lane:lane + 1] = [end]
                tid = UNIT_TID + unit * 1000 + lane
                thread(device, tid, f"{Unit(unit).name} {lane}")
                out.append(_slice(name, device, tid, start, end, args))
        for i, (event_id, rec_s, rec_ns, wait_s, wait_ns) in enumerate(self.flows):
            common = {"name": f"event {event_id}", "cat": "event", "id": i}
            out.append({**common, "ph": "s", "pid": self._device_of.get(rec_s, 0), "tid": rec_s,
                        "ts": (rec_ns - 1) / 1000})
            out.append({**common, "ph": "f", "bp": "e", "pid": self._device_of.get(wait_s, 0),
                        "tid": wait_s, "ts": wait_ns / 1000})
        return {"traceEvents": out, "displayTimeUnit": "ns"}

    def write(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_chrome()))


def _slice(name: str, pid: int, tid: int, start: int, end: int,
           args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "cat": "task", "ph": "X", "pid": pid, "tid": tid, "ts": start / 1000,
            "dur": (end - start) / 1000, "args": args}
