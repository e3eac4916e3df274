"""The pyACL facade under random and targeted misuse: sequences of `acl.*` calls whose arguments
are mostly the right kind (live or destroyed handles, pointers into or past allocations, sizes
and counts near the allocation sizes) and sometimes not (negative, huge, wrong Python types).

Every call must return its ACL code in pyACL's shape (``ret`` or ``(..., ret)``), never raise.
Two oracles catch silent corruption: an allocation no call ever named must still hold the bytes
the harness wrote into it when it was made, and a call on a handle already destroyed (or a
pointer already freed) must not return success.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from fuzzing.onnx_mutations import ROOT
from fuzzing.targets import Target
from fuzzing.verdict import CORRUPT, OK, UNCAUGHT, Verdict, where

# api -> (argument roles, role of the value it returns or None)
API: dict[str, tuple[tuple[str, ...], str | None]] = {
    "init": (("config",), None), "finalize": ((), None),
    "rt.set_device": (("dev",), None), "rt.reset_device": (("dev",), None),
    "rt.create_context": (("dev",), "context"), "rt.destroy_context": (("context",), None),
    "rt.set_context": (("context",), None), "rt.synchronize_device": ((), None),
    "rt.create_stream": ((), "stream"), "rt.destroy_stream": (("stream",), None),
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
    "rt.get_mem_info": (("attr",), None),
    "mdl.ri_build_begin": (("flag",), "model_ri"),
    "mdl.ri_bind_stream": (("model_ri", "stream", "flag"), None),
    "mdl.ri_end_task": (("model_ri", "stream"), None),
    "mdl.ri_build_end": (("model_ri",), None),
    "mdl.ri_execute": (("model_ri", "timeout"), None),
    "mdl.ri_execute_async": (("model_ri", "stream"), None),
    "mdl.ri_abort": (("model_ri",), None), "mdl.ri_destroy": (("model_ri",), None),
    "mdl.ri_label_create": (("model_ri",), "label"),
    "mdl.ri_label_set": (("label", "stream"), None),
    "mdl.ri_label_goto": (("label", "stream"), None),
    "mdl.ri_stream_active": (("stream", "stream"), None),
    "mdl.load_from_file": (("path",), "model_id"),
    "mdl.load_from_mem": (("hptr", "size"), "model_id"),
    "mdl.unload": (("model_id",), None),
    "mdl.create_desc": ((), "desc"), "mdl.get_desc": (("desc", "model_id"), None),
    "mdl.destroy_desc": (("desc",), None), "mdl.get_num_inputs": (("desc",), None),
    "mdl.get_input_size_by_index": (("desc", "index"), None),
    "mdl.create_dataset": ((), "dataset"),
    "mdl.add_dataset_buffer": (("dataset", "buffer"), None),
    "mdl.destroy_dataset": (("dataset",), None),
    "mdl.execute": (("model_id", "dataset", "dataset"), None),
    "create_data_buffer": (("anyptr", "size"), "buffer"),
    "update_data_buffer": (("buffer", "anyptr", "size"), None),
    "destroy_data_buffer": (("buffer",), None),
    "util.ptr_to_bytes": (("anyptr", "count"), None),
}
# What destroying a handle of a role is called: afterwards, success on that handle is a lie.
DESTROYS = {"rt.destroy_context": "context", "rt.destroy_stream": "stream", "rt.free": "ptr",
            "rt.free_host": "hptr", "rt.destroy_event": "event", "mdl.ri_destroy": "model_ri",
            "mdl.unload": "model_id", "mdl.destroy_desc": "desc",
            "mdl.destroy_dataset": "dataset", "destroy_data_buffer": "buffer"}
SIZES = (16, 64, 1024, 4096, 0)
WRONG = (None, "1", 1.5, [1], b"\x00", object, -1, -(2**63), 2**64, 2**47, 2**63)
PATTERN = 0xA5
DEVICE_BYTES = 64 << 20   # small, so a write past an allocation lands in another one
ROLE_VALUES: dict[str, tuple[Any, ...]] = {
    "dev": (0, 0, 1, -1), "timeout": (0, 10, -1, 1000), "kind": (0, 1, 2, 3, 4, -1),
    "value": (0, 255, 7, 300, -1), "index": (0, 1, -1, 99), "policy": (0, 1, 2, 9),
    "flag": (0, 1, 2), "attr": (0, 1, 9), "op": ("Add", "Relu", "NoSuchOp"),
    "attrs": (None, {}, {"alpha": "x"}),
    # names in ``paths`` (made by setup) stand for the files
    "config": ("", "array_json", "garbage", "a\0b"),
    "path": ("om", "no_such.om", "garbage", "a\0b", 1)}


def cases() -> st.SearchStrategy:
    arg = st.tuples(st.integers(0, 11), st.integers(0, 63))   # (mode, pick)
    call = st.tuples(st.sampled_from(sorted(API)), st.lists(arg, min_size=6, max_size=6))
    start = st.lists(st.sampled_from(["init", "rt.set_device", "rt.create_stream",
                                      "rt.malloc", "rt.malloc"]).map(lambda n: (n, [(0, 0)] * 6)),
                     max_size=5)
    return st.tuples(start, st.lists(call, min_size=1, max_size=12))


@dataclass
class State:
    pools: dict[str, list[Any]] = field(default_factory=dict)
    destroyed: dict[str, set[Any]] = field(default_factory=dict)
    allocs: dict[int, int] = field(default_factory=dict)    # live device ptr -> size
    named: set[int] = field(default_factory=set)             # allocations some call touched


def _value(role: str, mode: int, pick: int, state: State, paths: dict[str, str]) -> Any:
    if mode == 10:
        return WRONG[pick % len(WRONG)]
    pool = state.pools.get(role.replace("anyptr", "ptr"), [])
    live_or_dead = pool + sorted(state.destroyed.get(role, ()), key=repr)
    if role in ("stream", "event", "notify", "context", "model_ri", "label", "model_id",
                "desc", "dataset", "buffer", "hptr", "ptr", "anyptr"):
        if role == "anyptr" and mode % 3 == 2 and state.pools.get("hptr"):
            return state.pools["hptr"][pick % len(state.pools["hptr"])]
        if not live_or_dead:
            return (0, None, 12345)[pick % 3]
        base = live_or_dead[pick % len(live_or_dead)]
        return base + (0, 0, 0, 8, 4096, -8)[mode % 6] if "ptr" in role else base
    if role in ("size", "count"):
        return (SIZES[pick % len(SIZES)], -1, 2**31, 2**63 - 1, 8)[mode % 5] if mode < 9 \
            else SIZES[pick % len(SIZES)]
    if role == "tensors":
        ptrs = state.pools.get("ptr", []) or [0]
        shape = ((4,), (-1,), (1 << 40,), (), (2, 2))[mode % 5]
        dtype = ("float32", "int8", "bogus")[pick % 3]
        return [(ptrs[pick % len(ptrs)], shape, dtype)]
    values = ROLE_VALUES[role]
    if role in ("config", "path"):
        values = tuple(paths.get(v, v) if isinstance(v, str) else v for v in values)
    return values[(pick + mode) % len(values)]


def _resolve(api: str) -> Any:
    from npu_emu import acl
    obj: Any = acl
    for part in api.split("."):
        obj = getattr(obj, part)
    return obj


def _ret(result: Any) -> int | None:
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


def setup(workdir: str) -> dict[str, str]:
    from workbench.cli import main
    work = Path(workdir)
    (work / "array.json").write_text("[1, 2]")
    (work / "garbage").write_bytes(b"\xff\x00 not a model")
    main(["compile", str(ROOT / "sample_models" / "tiny_cnn.onnx"), "-o", str(work / "m.om"),
          "--no-cache"])
    return {"om": str(work / "m.om"), "array_json": str(work / "array.json"),
            "garbage": str(work / "garbage")}


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


def run(case: tuple, paths: dict[str, str]) -> Verdict:
    from npu_emu.runtime import RuntimeConfig
    from npu_emu.world import World
    start, calls = case
    state = State()
    gc.collect()   # the last case's runtime and its device memory
    with World(RuntimeConfig(memory_bytes=DEVICE_BYTES)).entered():
        for api, draws in [*start, *calls]:
            roles, makes = API[api]
            args = [_value(r, m, p, state, paths) for r, (m, p) in zip(roles, draws)]
            _note_named(args, state)
            try:
                result = _resolve(api)(*args)
            except BaseException as exc:   # noqa: BLE001 - the facade must return a code
                return Verdict(UNCAUGHT, f"acl.{api}{tuple(map(_short, args))}: "
                                         f"{type(exc).__name__}: {str(exc)[:120]} at {where(exc)}")
            ret = _ret(result)
            if ret is None:
                return Verdict(UNCAUGHT, f"acl.{api} returned {result!r}, not pyACL's shape")
            gone = DESTROYS.get(api)
            for role, value in zip(roles, args):
                if ret == 0 and value in state.destroyed.get(role, ()) and api != "init":
                    return Verdict(CORRUPT, f"acl.{api}{tuple(map(_short, args))} returned 0 "
                                            f"on a destroyed {role}")
            if ret != 0:
                continue
            if gone is not None:
                value = args[roles.index(gone)]
                state.destroyed.setdefault(gone, set()).add(value)
                if value in state.pools.get(gone, []):
                    state.pools[gone].remove(value)
                if gone == "ptr":
                    state.allocs.pop(value, None)
            if makes is not None:
                value = result[0] if isinstance(result, tuple) else None
                state.pools.setdefault(makes, []).append(value)
                state.destroyed.get(makes, set()).discard(value)
                if makes == "ptr" and isinstance(value, int):
                    state.allocs[value] = args[0]
                    _fill(value, args[0])
                    state.named.discard(value)
        from npu_emu import acl
        acl.rt.synchronize_device()
        for ptr, size in sorted(state.allocs.items()):
            if ptr in state.named:
                continue
            data = _device_bytes(ptr, size)
            if data is not None and data != bytes([PATTERN]) * size:
                return Verdict(CORRUPT, f"allocation {ptr:#x} (+{size}) changed though no call "
                                        f"named it")
    return Verdict(OK)


def _short(a: Any) -> str:
    text = repr(a)
    return text if len(text) < 40 else text[:37] + "..."


TARGET = Target("acl", cases, setup, run)
