"""The pyACL facade under random and targeted misuse: sequences of `acl.*` calls whose arguments
are mostly the right kind (live or destroyed handles, pointers into or past allocations, sizes
and counts near the allocation sizes) and sometimes not (negative, huge, wrong Python types).

Every call must return its ACL code in pyACL's shape (``ret`` or ``(..., ret)``; a value-only
call, as acl.create_data_buffer, its value, or the C call's failure value), never raise. Host
callbacks launched on a stream may raise, or call back into the runtime (a wait or a reset from
inside a callback must be refused, not re-enter the scheduler). A pseudo-call saves the runtime
as a snapshot and restores it, whole and with a byte flipped (npu_emu/snapshot/snapshot.py).

Two oracles catch silent corruption: an allocation no call ever named must still hold the bytes
the harness wrote into it when it was made, and a call on a handle already destroyed (or a
pointer already freed) must not return success.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

from fuzzing.onnx_mutations import ROOT
from fuzzing.targets import Target
from fuzzing.verdict import CORRUPT, OK, TYPED, UNCAUGHT, Verdict, release_last_case, where

# api -> (argument roles, role of the value it returns or None)
API: dict[str, tuple[tuple[str, ...], str | None]] = {
    "init": (("config",), None), "finalize": ((), None),
    "rt.set_device": (("dev",), None), "rt.reset_device": (("dev",), None),
    "rt.create_context": (("dev",), "context"), "rt.destroy_context": (("context",), None),
    "rt.set_context": (("context",), None), "rt.synchronize_device": ((), None),
    "rt.create_stream": ((), "stream"), "rt.destroy_stream": (("stream",), None),
    "rt.create_stream_with_config": (("priority", "flag"), "stream"),
    "rt.synchronize_stream": (("stream",), None),
    "rt.synchronize_stream_with_timeout": (("stream", "timeout"), None),
    "rt.stream_query": (("stream",), None),
    "rt.malloc": (("size", "policy"), "ptr"), "rt.free": (("ptr",), None),
    "rt.malloc_host": (("size",), "hptr"), "rt.free_host": (("hptr",), None),
    "rt.memcpy": (("ptr", "size", "anyptr", "count", "kind"), None),
    "rt.memcpy_async": (("ptr", "size", "anyptr", "count", "kind", "stream"), None),
    "rt.memset": (("ptr", "size", "value", "count"), None),
    "rt.create_event": ((), "event"), "rt.destroy_event": (("event",), None),
    "rt.record_event": (("event", "stream"), None),
    "rt.stream_wait_event": (("stream", "event"), None),
    "rt.reset_event": (("event", "stream"), None),
    "rt.query_event_status": (("event",), None), "rt.synchronize_event": (("event",), None),
    "rt.event_elapsed_time": (("event", "event"), None),
    "rt.create_notify": (("dev",), "notify"),
    "rt.record_notify": (("notify", "stream"), None),
    "rt.wait_and_reset_notify": (("notify", "stream", "timeout"), None),
    "rt.launch_kernel": (("op", "tensors", "tensors", "attrs", "stream"), None),
    "rt.launch_callback": (("callback", "user_data", "block", "stream"), None),
    "rt.get_mem_info": (("attr",), None),
    "mdl.ri_build_begin": (("flag",), "model_ri"),
    "mdl.ri_bind_stream": (("model_ri", "stream", "flag"), None),
    "mdl.ri_unbind_stream": (("model_ri", "stream"), None),
    "mdl.ri_end_task": (("model_ri", "stream"), None),
    "mdl.ri_build_end": (("model_ri",), None),
    "mdl.ri_execute": (("model_ri", "timeout"), None),
    "mdl.ri_execute_async": (("model_ri", "stream"), None),
    "mdl.ri_abort": (("model_ri",), None), "mdl.ri_destroy": (("model_ri",), None),
    "mdl.ri_set_name": (("model_ri", "name"), None),
    "mdl.ri_label_create": (("model_ri",), "label"),
    "mdl.ri_label_set": (("label", "stream"), None),
    "mdl.ri_label_goto": (("label", "stream"), None),
    "mdl.ri_label_switch_by_index": (("ptr", "labels", "stream"), None),
    "mdl.ri_stream_active": (("stream", "stream"), None),
    "mdl.ri_stream_switch": (("ptr", "condition", "scalar", "stream", "stream", "dtype"), None),
    "mdl.ri_capture_begin": (("stream", "mode"), None),
    "mdl.ri_capture_end": (("stream",), "model_ri"),
    "mdl.ri_capture_get_info": (("stream",), None),
    "mdl.ri_capture_task_grp_begin": (("stream",), None),
    "mdl.ri_capture_task_grp_end": (("stream",), "task_grp"),
    "mdl.ri_capture_task_update_begin": (("stream", "task_grp"), None),
    "mdl.ri_capture_task_update_end": (("stream",), None),
    "mdl.load_from_file": (("path",), "model_id"),
    "mdl.load_from_mem": (("hptr", "size"), "model_id"),
    "mdl.unload": (("model_id",), None),
    "mdl.create_desc": ((), "desc"), "mdl.get_desc": (("desc", "model_id"), None),
    "mdl.destroy_desc": (("desc",), None), "mdl.get_num_inputs": (("desc",), None),
    "mdl.get_input_size_by_index": (("desc", "index"), None),
    "mdl.get_output_name_by_index": (("desc", "index"), None),
    "mdl.get_input_dims": (("desc", "index"), None),
    "mdl.create_dataset": ((), "dataset"),
    "mdl.add_dataset_buffer": (("dataset", "buffer"), None),
    "mdl.get_dataset_buffer": (("dataset", "index"), None),
    "mdl.destroy_dataset": (("dataset",), None),
    "mdl.execute": (("model_id", "dataset", "dataset"), None),
    "mdl.execute_async": (("model_id", "dataset", "dataset", "stream"), None),
    "create_data_buffer": (("anyptr", "size"), "buffer"),
    "update_data_buffer": (("buffer", "anyptr", "size"), None),
    "get_data_buffer_addr": (("buffer",), None),
    "destroy_data_buffer": (("buffer",), None),
    "util.ptr_to_bytes": (("anyptr", "count"), None),
    "util.ptr_to_numpy": (("anyptr", "shape", "npy"), None),
    "util.numpy_to_ptr": (("array",), "hptr"),
    "util.bytes_to_ptr": (("bytes",), "hptr"),
    # not a pyACL call: npu_emu.snapshot.snapshot's save and restore of the runtime as the case
    # left it
    "snapshot": (("offset",), None),
}
# Calls that return only a value, as pyACL's do (no ret): what they return when they fail.
VALUE_ONLY: dict[str, Any] = {
    "mdl.create_desc": 0, "mdl.get_num_inputs": 0, "mdl.get_input_size_by_index": 0,
    "mdl.get_output_name_by_index": "", "mdl.create_dataset": 0, "mdl.get_dataset_buffer": 0,
    "create_data_buffer": 0, "get_data_buffer_addr": 0, "util.ptr_to_bytes": None,
    "util.ptr_to_numpy": None, "util.numpy_to_ptr": 0, "util.bytes_to_ptr": 0}
# What destroying a handle of a role is called: afterwards, success on that handle is a lie.
DESTROYS = {"rt.destroy_context": "context", "rt.destroy_stream": "stream", "rt.free": "ptr",
            "rt.free_host": "hptr", "rt.destroy_event": "event", "mdl.ri_destroy": "model_ri",
            "mdl.unload": "model_id", "mdl.destroy_desc": "desc",
            "mdl.destroy_dataset": "dataset", "destroy_data_buffer": "buffer"}
# Resetting the device (or finalize) destroys whatever lived on it. Device pointers are left
# out: a later allocation may legitimately cover a dead one (handled in _made).
RESETS = {"rt.reset_device", "finalize"}
ON_DEVICE = ("context", "stream", "event", "notify", "model_ri", "label", "task_grp")
# Calls that take any pointer without checking it, as the C ones do (a data buffer is only an
# address and a size until a model uses it; an async copy's pointers are read when its stream
# runs it, and a freed one is the stream's fault at its synchronize, as rtMemcpyAsync's is).
UNCHECKED = {("create_data_buffer", "anyptr"), ("update_data_buffer", "anyptr"),
             ("rt.memcpy_async", "ptr"), ("rt.memcpy_async", "anyptr")}
SIZES = (16, 64, 1024, 4096, 0)   # and the sample model's input and output sizes (setup)
WRONG = (None, "1", 1.5, [1], b"\x00", object, -1, -(2**63), 2**64, 2**47, 2**63)
PATTERN = 0xA5
SNAPSHOT_HOST_BYTES = 256 << 20   # the snapshot pseudo-call's limit (see _snapshot_round_trip)
DEVICE_BYTES = 64 << 20   # small, so a write past an allocation lands in another one


def _cb_ok(user_data: Any) -> None:
    """Host callbacks a case may launch: harmless, raising, or calling back into the runtime
    (a wait or a reset from inside a callback must be refused, not re-enter the scheduler)."""


def _cb_raise(user_data: Any) -> None:
    raise ValueError("the callback failed")


def _cb_sync(user_data: Any) -> None:
    from npu_emu import acl
    acl.rt.synchronize_device()


def _cb_reset(user_data: Any) -> None:
    from npu_emu import acl
    acl.rt.reset_device(0)


def _cb_alloc(user_data: Any) -> None:
    from npu_emu import acl
    ptr, ret = acl.rt.malloc(64, 0)
    if ret == 0:
        acl.rt.memset(ptr, 64, 1, 64)
        acl.rt.free(ptr)


ROLE_VALUES: dict[str, tuple[Any, ...]] = {
    "dev": (0, 0, 1, -1), "timeout": (0, 10, -1, 1000), "kind": (0, 1, 2, 3, 4, -1),
    "value": (0, 255, 7, 300, -1), "index": (0, 1, -1, 99), "policy": (0, 1, 2, 9),
    "flag": (0, 1, 2), "attr": (0, 1, 9), "op": ("Add", "Relu", "NoSuchOp"),
    "attrs": (None, {}, {"alpha": "x"}), "priority": (0, 7, 8, -1), "mode": (0, 1, 2),
    "condition": (0, 1, 5, 6), "scalar": (0, 1.5, -1, "x"),
    "dtype": ("int64", "float32", "bogus", "object"), "name": ("m", "", "a\0b"),
    "callback": (_cb_ok, _cb_raise, _cb_sync, _cb_reset, _cb_alloc, "not callable"),
    "user_data": (None, 1, "x"), "block": (0, 1, 2),
    "shape": ((4,), (-1,), (), (1 << 40,), "x", (2, 2)), "npy": (11, 7, 99, "float32", "object"),
    "bytes": (b"abc", b"", "str"),
    "offset": (None, 0, 100, 1000, 5000, -1, -200),   # where a byte of the snapshot is flipped
    # names in ``shared`` (made by setup) stand for the files
    "config": ("", "array_json", "garbage", "a\0b"),
    "path": ("om", "no_such.om", "garbage", "a\0b", 1)}


def cases() -> st.SearchStrategy:
    """(how many steps of the well-formed prologue run first, the random calls)."""
    arg = st.tuples(st.integers(0, 11), st.integers(0, 63))   # (mode, pick)
    call = st.tuples(st.sampled_from(sorted(API)), st.lists(arg, min_size=6, max_size=6))
    prologue = st.one_of(st.just(len(PROLOGUE)), st.integers(0, len(PROLOGUE)))
    return st.tuples(prologue, st.lists(call, min_size=1, max_size=12))


def _last(role: str) -> Callable[[State], Any]:
    return lambda state: state.pools[role][-1]


# A well-formed program the random calls then misuse: a device with streams, memory, an event,
# the sample model loaded with datasets of the right sizes, and a built aclmdlRI model. Each step
# is (api, argument makers); a case runs its first k steps (the rest if one fails is skipped).
PROLOGUE: tuple[tuple[str, tuple[Callable[[State], Any], ...]], ...] = (
    ("init", (lambda _: "",)), ("rt.set_device", (lambda _: 0,)),
    ("rt.create_stream", ()), ("rt.create_stream", ()),
    ("rt.malloc", (lambda _: 16, lambda _: 0)), ("rt.malloc", (lambda _: 4096, lambda _: 0)),
    ("rt.malloc_host", (lambda _: 1024,)), ("rt.create_event", ()),
    ("mdl.load_from_file", (lambda s: s.shared["om"],)), ("mdl.create_desc", ()),
    ("mdl.get_desc", (_last("desc"), _last("model_id"))),
    ("rt.malloc", (lambda s: s.shared["in_size"], lambda _: 0)),
    ("mdl.create_dataset", ()),
    ("create_data_buffer", (_last("ptr"), lambda s: s.shared["in_size"])),
    ("mdl.add_dataset_buffer", (_last("dataset"), _last("buffer"))),
    ("rt.malloc", (lambda s: s.shared["out_size"], lambda _: 0)),
    ("mdl.create_dataset", ()),
    ("create_data_buffer", (_last("ptr"), lambda s: s.shared["out_size"])),
    ("mdl.add_dataset_buffer", (_last("dataset"), _last("buffer"))),
    ("mdl.ri_build_begin", (lambda _: 0,)), ("rt.create_stream", ()),
    ("mdl.ri_bind_stream", (_last("model_ri"), _last("stream"), lambda _: 0)),
    ("mdl.ri_label_create", (_last("model_ri"),)),
    ("mdl.ri_end_task", (_last("model_ri"), _last("stream"))),
    ("mdl.ri_build_end", (_last("model_ri"),)),
)


@dataclass
class State:
    shared: dict[str, Any]                                   # what setup made: files, sizes
    pools: dict[str, list[Any]] = field(default_factory=dict)
    destroyed: dict[str, set[Any]] = field(default_factory=dict)
    allocs: dict[int, int] = field(default_factory=dict)    # live device ptr -> size
    host_bytes: int = 0                                      # asked of malloc_host so far
    named: set[int] = field(default_factory=set)             # allocations some call touched
    ok: bool = True                                          # the last call succeeded
    refused: bool = False                                    # some call returned an error


HANDLE_ROLES = ("stream", "event", "notify", "context", "model_ri", "label", "model_id", "desc",
                "dataset", "buffer", "task_grp", "hptr", "ptr", "anyptr")


def _value(role: str, mode: int, pick: int, state: State) -> Any:
    if mode == 10:
        return WRONG[pick % len(WRONG)]
    kind = role.replace("anyptr", "ptr")
    live_or_dead = state.pools.get(kind, []) + sorted(state.destroyed.get(kind, ()), key=repr)
    if role in HANDLE_ROLES:
        if role == "anyptr" and mode % 3 == 2 and state.pools.get("hptr"):
            return state.pools["hptr"][pick % len(state.pools["hptr"])]
        if not live_or_dead:
            return (0, None, 12345)[pick % 3]
        base = live_or_dead[pick % len(live_or_dead)]
        return base + (0, 0, 0, 8, 4096, -8)[mode % 6] if "ptr" in role else base
    if role in ("size", "count"):
        sizes = SIZES + (state.shared["in_size"], state.shared["out_size"])
        return (sizes[pick % len(sizes)], -1, 2**31, 2**63 - 1, 8)[mode % 5] if mode < 9 \
            else sizes[pick % len(sizes)]
    if role == "tensors":
        ptrs = state.pools.get("ptr", []) or [0]
        shape = ((4,), (4,), (2, 2), (), (-1,), (1 << 40,), (-1, -4))[mode % 7]
        dtype = ("float32", "float32", "int8", "bogus", "object")[pick % 5]
        return [(ptrs[pick % len(ptrs)], shape, dtype)]
    if role == "labels":
        labels = state.pools.get("label", []) + sorted(state.destroyed.get("label", ()))
        return [labels[(pick + i) % len(labels)] for i in range(mode % 3)] if labels else []
    if role == "array":
        import numpy as np
        return (np.zeros(4, np.float32), np.zeros(8, np.int8)[::2], np.float32(1), "x")[mode % 4]
    values = ROLE_VALUES[role]
    if role in ("config", "path"):
        values = tuple(state.shared.get(v, v) if isinstance(v, str) else v for v in values)
    return values[(pick + mode) % len(values)]


def _resolve(api: str) -> Any:
    from npu_emu import acl
    obj: Any = acl
    for part in api.split("."):
        obj = getattr(obj, part)
    return obj


def _ret(api: str, result: Any) -> int | None:
    """The call's return code; a value-only call has none: 0 unless it returned its failure
    value. None when the result is not in pyACL's shape."""
    if api in VALUE_ONLY:
        failed = VALUE_ONLY[api]
        if isinstance(result, tuple):
            return None
        if failed is None:   # an object (bytes, an array) or None
            return 1 if result is None else 0
        return 1 if type(result) is type(failed) and result == failed else 0
    if isinstance(result, int) and not isinstance(result, bool):
        return result
    if isinstance(result, tuple) and result and isinstance(result[-1], int):
        return result[-1]
    return None


def _note_named(args: list[Any], state: State) -> None:
    flat = []
    for a in args:
        flat += [t[0] for t in a if isinstance(t, tuple) and t] if isinstance(a, list) else [a]
    for a in flat:
        if isinstance(a, int) and not isinstance(a, bool):
            state.named.update(p for p, n in state.allocs.items() if p <= a < p + max(n, 1))


def setup(workdir: str) -> dict[str, Any]:
    from npu_emu import acl
    from npu_emu.world import World
    from workbench.cli import main
    work = Path(workdir)
    (work / "array.json").write_text("[1, 2]")
    (work / "garbage").write_bytes(b"\xff\x00 not a model")
    om = str(work / "m.om")
    main(["compile", str(ROOT / "sample_models" / "tiny_cnn.onnx"), "-o", om, "--no-cache"])
    with World().entered():   # the model's input and output sizes, as a program asks them
        acl.init()
        acl.rt.set_device(0)
        model_id, _ = acl.mdl.load_from_file(om)
        desc = acl.mdl.create_desc()
        acl.mdl.get_desc(desc, model_id)
        sizes = (acl.mdl.get_input_size_by_index(desc, 0),
                 acl.mdl.get_output_size_by_index(desc, 0))
        acl.finalize()
    return {"om": om, "array_json": str(work / "array.json"), "garbage": str(work / "garbage"),
            "in_size": sizes[0], "out_size": sizes[1], "snapshot": str(work / "case.snap")}


def _snapshot_round_trip(offset: int | None, state: State) -> Verdict | None:
    """Save the case's runtime and restore it: saving may only refuse what is code (a pending
    callback); what is restored must save to the same document again (nothing lost or
    invented); a copy with one byte flipped must restore or be refused as a SnapshotError.
    Not with gigabytes of host buffers: each round trip would write and read them (~20 s);
    tests/npu_emu/snapshot/test_snapshot.py checks what a large buffer costs."""
    import zipfile
    if state.host_bytes > SNAPSHOT_HOST_BYTES:
        return None

    from npu_emu.base.errors import AclError
    from npu_emu.snapshot.codec import SnapshotError
    from npu_emu.snapshot import snapshot
    from npu_emu.world import World, current_runtime
    if isinstance(offset, bool) or not isinstance(offset, int):   # a wrong value was drawn
        offset = None
    path = Path(state.shared["snapshot"])
    try:
        snapshot.save(current_runtime(), path)
    except SnapshotError:
        return None
    documents = []
    for name in ("restored", "flipped"):
        if name == "flipped":
            if offset is None:
                break
            with path.open("r+b") as f:   # in place: a snapshot may hold gigabytes
                at = offset % f.seek(0, 2)
                f.seek(at)
                byte = f.read(1)[0]
                f.seek(at)
                f.write(bytes([byte ^ 0x5A]))
        try:
            restored = snapshot.restore(path)
        except SnapshotError as exc:
            if name == "restored":
                return Verdict(CORRUPT, f"a snapshot just saved does not restore: {exc}")
            continue
        with World(runtime=restored).entered():
            if name == "restored":
                again = path.with_suffix(".again")
                snapshot.save(restored, again)
                documents = [zipfile.ZipFile(p).read("state.json") for p in (path, again)]
            for device in list(restored.devices.values()):
                try:
                    device.synchronize()
                except AclError:
                    pass
    if documents and documents[0] != documents[1]:
        return Verdict(CORRUPT, "a restored snapshot saves differently from the saved one")
    return None


def _device_bytes(ptr: int, size: int) -> bytes | None:
    from npu_emu.world import current_runtime
    for device in current_runtime().devices.values():
        try:
            return device.memory.read(ptr, size)
        except Exception:   # noqa: BLE001 - freed by the program: nothing to compare
            continue
    return None


def _fill(ptr: int, size: int) -> None:
    from npu_emu.world import current_runtime
    for device in current_runtime().devices.values():
        try:
            device.memory.write(ptr, bytes([PATTERN]) * size)
            return
        except Exception:   # noqa: BLE001 - not this device's
            continue


def _dead(api: str, role: str, value: Any, state: State) -> bool:
    """Was ``value`` destroyed as a ``role`` (an ``anyptr`` may be a freed device or host
    pointer)? Unhashable values (wrong types) never were."""
    if (api, role) in UNCHECKED or not isinstance(value, Hashable):
        return False
    kinds = ("ptr", "hptr") if role == "anyptr" else (role,)
    return any(value in state.destroyed.get(k, ()) for k in kinds)


def _made(role: str, value: Any, size: Any, state: State) -> None:
    state.pools.setdefault(role, []).append(value)
    state.destroyed.get(role, set()).discard(value)
    if role == "ptr" and isinstance(value, int):
        # a new block may cover freed ones (the pool returns cached blocks to the driver
        # under pressure): a pointer inside it is live again
        state.destroyed["ptr"] = {p for p in state.destroyed.get("ptr", ())
                                  if not value <= p < value + size}
        state.allocs[value] = size
        _fill(value, size)
        state.named.discard(value)


def _forget(role: str, value: Any, state: State) -> None:
    state.destroyed.setdefault(role, set()).add(value)
    if value in state.pools.get(role, []):
        state.pools[role].remove(value)
    if role == "ptr":
        state.allocs.pop(value, None)


def _call(api: str, args: list[Any], state: State) -> Verdict | None:
    """Make one call and judge it; None when the case goes on."""
    roles, makes = API[api]
    _note_named(args, state)
    try:
        if api == "snapshot":
            return _snapshot_round_trip(*args, state)
        result = _resolve(api)(*args)
    except BaseException as exc:   # noqa: BLE001 - the facade must return a code
        return Verdict(UNCAUGHT, f"acl.{api}{tuple(map(_short, args))}: "
                                 f"{type(exc).__name__}: {str(exc)[:120]} at {where(exc)}")
    ret = _ret(api, result)
    if ret is None:
        return Verdict(UNCAUGHT, f"acl.{api} returned {_short(result)}, not pyACL's shape")
    state.ok = ret == 0
    if ret != 0:
        state.refused = True
        return None
    for role, value in zip(roles, args):
        if api != "init" and _dead(api, role, value, state):
            return Verdict(CORRUPT, f"acl.{api}{tuple(map(_short, args))} succeeded on a "
                                    f"destroyed {role}")
    if api in DESTROYS:
        _forget(DESTROYS[api], args[roles.index(DESTROYS[api])], state)
    if api in RESETS:
        for role in ON_DEVICE:
            for value in list(state.pools.get(role, [])):
                _forget(role, value, state)
    if makes is not None:
        value = result if api in VALUE_ONLY else result[0]
        _made(makes, value, args[0] if makes == "ptr" else 0, state)
        if api == "rt.malloc_host" and isinstance(args[0], int):
            state.host_bytes += args[0]
    return None


def run(case: tuple, shared: dict[str, Any]) -> Verdict:
    from npu_emu import acl
    from npu_emu.runtime import RuntimeConfig
    from npu_emu.world import World
    prologue, calls = case
    state = State(shared)
    release_last_case()   # its runtimes and the device memory they reserved
    with World(RuntimeConfig(memory_bytes=DEVICE_BYTES)).entered():
        for api, makers in PROLOGUE[:prologue]:
            verdict = _call(api, [make(state) for make in makers], state)
            if verdict is not None:
                return verdict
            if not state.ok:
                break
        for api, draws in calls:
            roles, _ = API[api]
            verdict = _call(api, [_value(r, m, p, state) for r, (m, p) in zip(roles, draws)],
                            state)
            if verdict is not None:
                return verdict
        acl.rt.synchronize_device()
        for ptr, size in sorted(state.allocs.items()):
            if ptr in state.named:
                continue
            data = _device_bytes(ptr, size)
            if data is not None and data != bytes([PATTERN]) * size:
                return Verdict(CORRUPT, f"allocation {ptr:#x} (+{size}) changed though no call "
                                        f"named it")
    return Verdict(TYPED) if state.refused else Verdict(OK)


def _short(a: Any) -> str:
    text = repr(a)
    return text if len(text) < 40 else text[:37] + "..."


TARGET = Target("acl", cases, setup, run)
