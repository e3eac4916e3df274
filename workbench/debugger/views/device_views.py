"""The device side of the parked world (the run's own runtime, never the process's current
one): streams, events, notifies, labels, models, memory, and tensors read from device memory."""
from __future__ import annotations

import math

import numpy as np

from npu_emu.base.counted import counted
from npu_emu.core.device import Device
from npu_emu.core.stream import Stream
from npu_emu.runtime import Runtime
from npu_emu.scheduler.task import EVENT_WAIT
from workbench.debugger.outcomes import Error, Outcome, Printed, TableOutcome
from workbench.debugger.stream_names import named_stream, stream_label
from workbench.debugger.views import tensor_text
from workbench.debugger.views.tensor_spec import INFERRED, parse_tensor_spec, spec_text

NO_DEVICE = "no device in this run yet (nothing has called set_device)"


def _streams(rt: Runtime) -> list[tuple[Device, Stream]]:
    return [(d, s) for d in rt.devices.values() for s in d.scheduler.streams]


def streams(rt: Runtime, logical: dict[int, int] | None = None,
            names: dict[int, str] | None = None) -> Outcome:
    """The runtime's streams, each by its one name (``s0/rt1``; ``logical``: rt stream id ->
    the GE logical stream bound to it); ``names``: rt stream id -> the host program's variable
    for it (handle_names.py)."""
    if not rt.devices:
        return Printed(NO_DEVICE)
    named = ("name",) if names else ()
    rows = []
    for d, s in _streams(rt):
        rows.append((str(d.id), stream_label(s.id, logical),
                     *(names.get(s.id, "-") for _ in named), s.state.name.lower(),
                     f"{s.sq.head_pos}", str(s.pending), f"{s.cq.unreclaimed}",
                     f"m{s.model.id}" + (" head" if s in s.model.head_streams else "")
                     if s.model else "-", str(s.waiting) if s.waiting else "-"))
    return TableOutcome("streams", ("dev", "stream", *named, "state", "next SQE", "pending",
                                    "CQ", "model", "waiting at"), tuple(rows))


def _sync_table(rt: Runtime, what: str, title: str, flags_of, extra,
                logical: dict[int, int] | None = None,
                names: dict[int, str] | None = None,
                streams: dict[int, str] | None = None) -> Outcome:
    """Events or notifies: every id a queued task names or that was ever recorded;
    ``names``: id -> the host program's variable for it, ``streams`` likewise by rt stream."""
    named = ("name",) if names else ()
    if not rt.devices:
        return Printed(NO_DEVICE)
    attr = f"{what}_id"
    rows = []
    for d in rt.devices.values():
        users: dict[int, tuple[list[str], list[str]]] = {}
        for s in d.scheduler.streams:
            for t in s.queued():
                ident = getattr(t, attr, None)
                if ident is not None:
                    side = 1 if t.kind >= EVENT_WAIT else 0   # waits, or records
                    users.setdefault(ident, ([], []))[side].append(
                        named_stream(s.id, logical, streams))
        for ident in sorted(set(users) | set(extra(d))):
            records, waits = users.get(ident, ([], []))
            blocked = [named_stream(s.id, logical, streams) for s in d.scheduler.streams
                       if s.waiting is not None and getattr(s.waiting, attr, None) == ident]
            rows.append((str(d.id), str(ident), *(names.get(ident, "-") for _ in named),
                         flags_of(d, ident),
                         ",".join(dict.fromkeys(records)) or "-",
                         ",".join(dict.fromkeys(waits)) or "-", ",".join(blocked) or "-"))
    return TableOutcome(title, ("dev", what, *named, "state", "recorded by", "waited on by",
                                     "blocked"), tuple(rows))


def events(rt: Runtime, logical: dict[int, int] | None = None,
           names: dict[int, str] | None = None,
           streams: dict[int, str] | None = None) -> Outcome:
    """``logical`` (here and below): rt stream id -> GE's logical stream, to name streams;
    ``names``: event id -> the host program's variable for it, ``streams``: rt stream id ->
    its variable."""
    def state(d: Device, i: int) -> str:
        if d.event_flags[i]:
            return f"recorded at {d.event_times.get(i, 0)} ns"
        return "clear"
    return _sync_table(rt, "event", "events", state, lambda d: d.event_times, logical, names,
                       streams)


def notifies(rt: Runtime, logical: dict[int, int] | None = None,
             streams: dict[int, str] | None = None) -> Outcome:
    def state(d: Device, i: int) -> str:
        count = d.notify_counts.get(i, 0)
        return ("set" if d.notify_flags[i] else "clear") + \
            f", {counted(count, 'record')}"
    return _sync_table(rt, "notify", "notifies", state,
                       lambda d: list(d.notify_counts) + [m.end_notify.id for m in rt.models
                                                          if m.device is d], logical,
                       streams=streams)


def labels(rt: Runtime, logical: dict[int, int] | None = None) -> Outcome:
    rows = tuple((str(m.id), str(label.id),
                  stream_label(label.stream.id, logical) if label.stream is not None else "-",
                  str(label.pos) if label.stream is not None else "unset")
                 for m in rt.models for label in m.labels.labels)
    if not rows:
        return Printed("no labels (no model has created one)")
    return TableOutcome("labels", ("model", "label", "stream", "SQE"), rows)


def models(rt: Runtime, logical: dict[int, int] | None = None) -> Outcome:
    rows = tuple((str(m.id), m.name, m.state.value, "yes" if m.running else "-",
                  ",".join(stream_label(s.id, logical) for s in m.streams) or "-",
                  ",".join(stream_label(s.id, logical) for s in m.head_streams) or "-",
                  str(sum(len(s.sq.entries) for s in m.streams)), str(len(m.labels.labels)))
                 for m in rt.models)
    if not rows:
        return Printed("no models")
    return TableOutcome("models", ("model", "name", "state", "running", "streams", "head",
                                   "SQEs", "labels"), rows)


def memory(rt: Runtime) -> Outcome:
    if not rt.devices:
        return Printed(NO_DEVICE)
    rows = []
    for d in rt.devices.values():
        mem = d.memory
        blocks = mem.live_blocks()
        rows.append((str(d.id), "total", f"{mem.capacity}", f"{len(blocks)} live blocks, "
                     f"{mem.free_bytes()} bytes free"))
        rows += [(str(d.id), f"{addr:#x}", str(size), "") for addr, size in blocks]
    return TableOutcome("device memory", ("dev", "address", "bytes", ""), tuple(rows))


def device_tensor(rt: Runtime, args: list[str]) -> Outcome:
    """`print tensor 0xADDR [SHAPE] [DTYPE]` (tensor_spec: as the IR prints them; default the
    rest of the allocation as f32). Only the allocation that holds ADDR is read: a shape that
    runs past its end is refused, not read into whatever lies beyond."""
    what = f"print tensor {args[0]}"
    if not rt.devices:
        return Error(f"{what}: {NO_DEVICE}")
    try:
        addr = int(args[0], 0)
    except ValueError:
        return Error(f"{what}: not an address (0x... as `info memory` lists them)")
    shape, dtype = parse_tensor_spec(args[1:])
    dtype = dtype if dtype is not None else np.dtype(np.float32)
    device = next(iter(rt.devices.values()))
    start = device.memory.block_of(addr)
    if start is None:
        return Error(f"{what}: not inside a live allocation (`info memory` lists them)")
    left = start + dict(device.memory.live_blocks())[start] - addr
    if shape is None:
        shape = (INFERRED,)
    known = math.prod(d for d in shape if d != INFERRED)
    rest = left // (known * dtype.itemsize) if known else 0
    shape = tuple(rest if d == INFERRED else d for d in shape)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > left:
        return Error(f"{what}: {spec_text(shape, dtype)} is {nbytes} bytes, but the "
                     f"allocation at {start:#x} holds {left} from {addr:#x}")
    values = device.memory.view(addr, shape, dtype).copy()
    return Printed(tensor_text.full(f"{addr:#x}", values, f"device {device.id} memory"),
                   style="tensor")
