"""Snapshots carry data only: a crafted file runs no code, a corrupted or hand-edited one is one
SnapshotError, and the schema lists every field the runtime's objects really have."""
import io
import json
import pickle
import runpy
import zipfile
from pathlib import Path

import numpy as np
import pytest

import npu_emu.acl as acl
from npu_emu_testing import empty, make_runtime, vec
from npu_emu.base.errors import (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                                 ACL_ERROR_SNAPSHOT_BACKUP_FAILED,
                                 ACL_ERROR_SNAPSHOT_RESTORE_FAILED)
from npu_emu.core.kernel_task import make_kernel_task
from npu_emu.core.stream import Stream, StreamSwitchExTask
from npu_emu.feature.fusion_launch import fusion_launch
from npu_emu.feature.hccl import hccl_launch
from npu_emu.scheduler.cost_model import Unit
from npu_emu.snapshot.codec import Encoder, SnapshotError
from npu_emu.snapshot.schema import SCHEMA
from npu_emu.snapshot import snapshot
from npu_emu.world import World

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = sorted((ROOT / "sample_models" / "devrun").glob("*.py"))


def sample_runtime(script: Path):
    """The runtime a sample host program leaves (finalize skipped, so everything is live): the
    world's, which a program that restores a snapshot has replaced."""
    world = World(runtime=make_runtime())
    with world.entered():
        finalize, acl.finalize = acl.finalize, lambda: 0
        try:
            runpy.run_path(str(script), run_name="__main__")
        finally:
            acl.finalize = finalize
    return world.runtime


def rich_runtime():
    """Every saved class at once: a fused launch, HCCL, a model mid-build with labels, switches
    and activations, a capture in progress with a task group, facade handles, a kernel binary
    and its function, a deadlock; on a 950, so the model grows by AutoSplit."""
    rt = make_runtime(race_check=True, soc_version="Ascend950")
    with World(runtime=rt).entered():
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        dev = rt.device(0)
        a, b = vec(rt, np.arange(8, dtype=np.float32)), empty(rt, (8,))
        s1, s2 = rt.create_stream(), rt.create_stream()
        s1.wait_event(rt.create_event())          # never recorded: s1 stays blocked
        fusion_launch(s1, [make_kernel_task(dev, "Relu", (a,), (b,), unit=Unit.AI_CORE),
                           make_kernel_task(dev, "Neg", (a,), (a,), unit=Unit.AI_CPU)])
        hccl_launch(s1, "AllReduce", a.addr, b.addr, 8, np.float32)
        s1.reset_event(rt.create_event())
        s1.record_notify(rt.create_notify())
        s2.record_event(rt.create_event())
        assert acl.rt.synchronize_stream(rt.handle(s1)) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        model = acl.mdl.ri_build_begin(0)[0]
        head, other = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
        acl.mdl.ri_bind_stream(model, head, 0)
        acl.mdl.ri_bind_stream(model, other)
        label, _ = acl.mdl.ri_label_create(model)
        index = acl.rt.malloc(8, 0)[0]
        assert acl.mdl.ri_label_set(label, head) == 0
        assert acl.mdl.ri_label_switch_by_index(index, [label], head) == 0
        assert acl.mdl.ri_stream_switch(index, 0, 1, other, head) == 0
        assert acl.mdl.ri_stream_active(other, head) == 0
        switch_ex = StreamSwitchExTask(index, 0, index + 4, rt.resolve(other, Stream), "int32",
                                       1000)
        dev.submit(rt.resolve(head, Stream), switch_ex)
        assert acl.mdl.ri_label_goto(label, head) == 0
        captured = acl.rt.create_stream()[0]
        assert acl.mdl.ri_capture_begin(captured) == 0
        acl.mdl.ri_capture_task_grp_begin(captured)
        acl.rt.launch_kernel("Relu", [(a.addr, (8,), "float32")], [(b.addr, (8,), "float32")],
                             {"alpha": [1.5, (2, "x")], "w": np.ones(2, np.float16)}, captured)
        acl.mdl.ri_capture_task_grp_end(captured)
        buffer = acl.create_data_buffer(a.addr, 32)
        acl.mdl.add_dataset_buffer(acl.mdl.create_dataset(), buffer)
        acl.mdl.create_desc()
        acl.util.numpy_to_ptr(np.zeros(3, np.int64))
        binary = json.dumps({"kernels": [{"name": "k_1", "kernel": "Neg",
                                          "inputs": [["float32", [8]]],
                                          "outputs": [["float32", [8]]]}]}).encode()
        program, _ = acl.rt.binary_load_from_data(acl.util.bytes_to_ptr(binary), len(binary),
                                                  None)
        acl.rt.binary_get_function(program, "k_1")
    assert [f.kind for f in rt.faults] == ["deadlock"]
    return rt


def state_of(path):
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("state.json"))


def attributes(obj):
    """What an object holds: its attributes, slots (not ``__weakref__``, Python's own), and
    properties that store (the runtime's current context, kept per thread)."""
    names = set(getattr(obj, "__dict__", {}))
    return names | {n for c in type(obj).__mro__ for n in getattr(c, "__slots__", ())
                    if hasattr(obj, n) and n != "__weakref__"} | \
        {n for c in type(obj).__mro__ for n, v in vars(c).items()
         if isinstance(v, property) and v.fset is not None}


@pytest.mark.parametrize("script", SAMPLES, ids=lambda p: p.stem)
def test_a_sample_runtime_saves_restores_and_saves_the_same_again(tmp_path, script, capsys):
    rt = sample_runtime(script)
    first, second = tmp_path / "a.snap", tmp_path / "b.snap"
    with World(runtime=rt).entered():
        snapshot.save(rt, first)
    restored = snapshot.restore(first)
    with World(runtime=restored).entered():
        snapshot.save(restored, second)
        assert state_of(first) == state_of(second)
        for device in restored.devices.values():
            for addr, size in device.memory.live_blocks():
                assert device.memory.read(addr, size) == rt.device(device.id).memory.read(addr,
                                                                                          size)


def test_the_schema_lists_every_attribute_of_every_saved_object(capsys):
    """A field added to a runtime class must be added to the schema (or be declared
    transient), or snapshots would silently drop it."""
    seen = set()
    for rt in [rich_runtime()] + [sample_runtime(script) for script in SAMPLES]:
        encoder = Encoder(SCHEMA)
        encoder.encode(rt)
        for obj in encoder._pending:
            spec = SCHEMA[type(obj)]
            known = set(spec.fields) | set(spec.transient)
            assert attributes(obj) - {"recorder"} == known, type(obj).__name__  # a test's
            seen.add(type(obj))
    assert seen == set(SCHEMA)   # every class the schema lists was met


def test_a_rich_runtime_round_trips(tmp_path):
    rt = rich_runtime()
    first, second = tmp_path / "a.snap", tmp_path / "b.snap"
    with World(runtime=rt).entered():
        snapshot.save(rt, first)
    restored = snapshot.restore(first)
    assert restored.race_detector is not None
    with World(runtime=restored).entered():
        snapshot.save(restored, second)
    assert state_of(first) == state_of(second)


def test_a_restored_memory_keeps_its_constant_blocks_under_a_new_epoch(tmp_path):
    # What a kernel derived from a constant before the save must not be trusted after the
    # restore: the restored memory's epoch was never the saved one's.
    from npu_emu.base.constant_memory import owner_of
    rt = make_runtime()
    with World(runtime=rt).entered():
        rt.set_device(0)
        weights = vec(rt, np.ones(4, np.float32))
        memory = rt.device(0).memory
        memory.mark_constant(weights.addr)
        snapshot.save(rt, tmp_path / "c.snap")
    restored = snapshot.restore(tmp_path / "c.snap").device(0).memory
    assert restored.in_constant(weights.addr) and restored.epoch != memory.epoch
    owner, buffer = owner_of(restored._buf)   # it vouches for its new buffer
    assert owner is restored and buffer is restored._buf


class Exploit:
    def __reduce__(self):
        return (Path.write_text, (Path("/tmp/npu_emu_snapshot_pwned"), "ran"))


def test_a_pickle_in_a_snapshot_file_is_refused_and_never_run(tmp_path):
    marker = Path("/tmp/npu_emu_snapshot_pwned")
    marker.unlink(missing_ok=True)
    old = tmp_path / "old.snap"
    old.write_bytes(b"NPUEMU-SNAPSHOT-1\n" + pickle.dumps(Exploit()))
    inside = tmp_path / "inside.snap"
    with zipfile.ZipFile(inside, "w") as archive:
        archive.writestr("state.json", json.dumps({"format": "npu_emu snapshot", "version": 2,
                                                   "root": 0, "objects": []}))
        buf = io.BytesIO()
        np.save(buf, np.array([Exploit()], dtype=object), allow_pickle=True)
        archive.writestr("a0.npy", buf.getvalue())
    for path in (old, inside):
        with pytest.raises(SnapshotError) as err:
            snapshot.restore(path)
        assert err.value.code == ACL_ERROR_SNAPSHOT_RESTORE_FAILED
    assert not marker.exists()


@pytest.fixture
def saved(tmp_path):
    rt = sample_runtime(ROOT / "sample_models" / "devrun" / "timeout.py")
    path = tmp_path / "s.snap"
    with World(runtime=rt).entered():
        snapshot.save(rt, path)
    return path


def rewrite(path, edit):
    """The snapshot at ``path`` with its JSON document passed through ``edit``."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    document = json.loads(members["state.json"])
    edit(document)
    members["state.json"] = json.dumps(document).encode()
    out = path.with_suffix(".edited")
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out


def first(document, cls):
    return next(o for o in document["objects"] if o["class"] == cls)["fields"]


EDITS = {
    "version": lambda d: d.update(version=1),
    "unknown class": lambda d: d["objects"][1].update({"class": "os.system"}),
    "missing field": lambda d: first(d, "Stream").pop("sq"),
    "extra field": lambda d: first(d, "Stream").update(evil=1),
    "wrong kind": lambda d: first(d, "Stream").update(id="7"),
    "bool for int": lambda d: first(d, "TaskScheduler").update(now=True),
    "bad reference": lambda d: first(d, "Stream").update(sq=10**9),
    "reference to the wrong class": lambda d: first(d, "Stream").update(sq=d["root"]),
    "unknown enum": lambda d: first(d, "Stream").update(state="EXPLODING"),
    "heap names no stream": lambda d: first(d, "TaskScheduler").update(_ready=[0xFFFF]),
    "block past the capacity": lambda d: first(d, "DeviceMemory").update(capacity=512),
    "constant block not live": lambda d: first(d, "DeviceMemory").update(_constant=[512]),
    "notify id past the table": lambda d: next(o for o in d["objects"] if "notify_id" in
                                               o["fields"])["fields"].update(notify_id=10**9),
    "wait that is not a wait": lambda d: next(o for o in d["objects"] if o["class"] ==
                                              "KernelTask")["fields"].update(kind=2),
    "config out of range": lambda d: first(d, "Runtime")["config"].update(device_count=0),
    "a rate of zero": lambda d: first(d, "Device")["cost"].update(vector_bytes_per_ns=0),
    "npy scalar out of range": lambda d: next(o for o in d["objects"] if o["class"] ==
                                              "KernelTask")["fields"]["attrs"].append(
                                                  ["x", {"np": ["|u1", 300]}]),
    "negative dim": lambda d: next(o for o in d["objects"] if o["class"] == "KernelTask")[
        "fields"]["outputs"][0].update(shape=[-1]),
    "not an object table": lambda d: d.update(objects={"a": 1}),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_a_hand_edited_snapshot_is_one_snapshot_error(saved, name):
    with pytest.raises(SnapshotError, match="not a valid snapshot"):
        snapshot.restore(rewrite(saved, EDITS[name]))


def test_an_array_whose_header_lies_about_its_size_is_refused_before_allocating(saved, tmp_path):
    with zipfile.ZipFile(saved) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    key = next(n for n in members if n.endswith(".npy"))
    header = f"{{'descr': '|u1', 'fortran_order': False, 'shape': ({1 << 45},), }}"
    members[key] = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
    lying = tmp_path / "lying.snap"
    with zipfile.ZipFile(lying, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(SnapshotError, match="does not fit"):
        snapshot.restore(lying)


def test_every_flipped_or_cut_byte_is_a_snapshot_error_or_a_runtime_that_runs(saved, tmp_path):
    data = saved.read_bytes()
    bad = tmp_path / "bad.snap"
    outcomes = set()
    # a stride through the archive, and every byte of its central directory at the end (whose
    # times and attributes a restore may ignore: the stride alone hit one only by chance)
    spots = sorted({*range(0, len(data), max(1, len(data) // 400)),
                    *range(max(0, len(data) - 200), len(data))})
    for i in spots:
        for mutated in (data[:i] + bytes([data[i] ^ 0x5A]) + data[i + 1:], data[:i]):
            bad.write_bytes(mutated)
            try:
                rt = snapshot.restore(bad)
            except SnapshotError:
                outcomes.add("refused")
                continue
            with World(runtime=rt).entered():   # what was accepted must run
                for device in rt.devices.values():
                    try:
                        device.synchronize()
                    except Exception as exc:  # noqa: BLE001 - only the runtime's own errors
                        assert isinstance(exc, SnapshotError.__mro__[1]), repr(exc)
            outcomes.add("restored")
    assert outcomes == {"refused", "restored"}   # bytes of device memory may change freely


def test_what_is_code_cannot_be_saved(tmp_path):
    rt = make_runtime()
    with World(runtime=rt).entered():
        rt.set_device(0)
        rt.kernels.register("MyKernel", lambda x: (x,))
        with pytest.raises(SnapshotError) as err:
            snapshot.save(rt, tmp_path / "k.snap")
        assert err.value.code == ACL_ERROR_SNAPSHOT_BACKUP_FAILED and "MyKernel" in str(err.value)
    rt = make_runtime()
    with World(runtime=rt).entered():
        rt.set_device(0)
        stream = rt.create_stream()
        stream.wait_event(rt.create_event())
        stream.launch_callback(print, "pending")
        with pytest.raises(SnapshotError, match="CallbackTask cannot be saved"):
            snapshot.save(rt, tmp_path / "c.snap")


def _host_buffer_runtime(nbytes: int):
    """A runtime with a device and a host buffer of ``nbytes`` sevens, and its address."""
    rt = make_runtime()
    with World(runtime=rt).entered():
        rt.set_device(0)
        ptr = rt.host.malloc(nbytes)
        rt.host.bytes_view(ptr, nbytes)[:] = 7
    return rt, ptr


def test_a_runtime_saves_to_the_same_bytes_whenever_it_is_saved(monkeypatch):
    """No wall-clock time in the archive's members (zipfile stamps each with the local time)."""
    import time
    rt, _ = _host_buffer_runtime(64)
    first = snapshot.dumps(rt)
    monkeypatch.setattr(time, "time", lambda: 2_000_000_000.0)
    assert snapshot.dumps(rt) == first


def _peaks(rt, path: Path) -> tuple[int, int]:
    """The most memory Python held while saving ``rt`` to ``path``, and while restoring it."""
    import tracemalloc
    tracemalloc.start()
    try:
        snapshot.save(rt, path)
        _, saving = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        snapshot.restore(path)
        _, restoring = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return saving, restoring


def test_saving_and_restoring_a_large_host_buffer_copies_it_once(tmp_path):
    """A 64 MiB host buffer: the save streams it into the file, the restore reads the file into
    the restored array (three copies at once put a 2 GiB buffer past an 8 GiB address space).
    Measured against the same runtime with a 64-byte buffer (the device's memory is restored
    too)."""
    nbytes = 64 << 20
    rt, ptr = _host_buffer_runtime(nbytes)
    saving, restoring = _peaks(rt, tmp_path / "big.snap")
    base_saving, base_restoring = _peaks(_host_buffer_runtime(64)[0], tmp_path / "small.snap")
    assert saving - base_saving < nbytes // 2
    assert restoring - base_restoring < nbytes * 5 // 4
    with World().entered():
        copy = snapshot.restore(tmp_path / "big.snap").host.bytes_view(ptr, nbytes)
    assert int(copy.min()) == int(copy.max()) == 7
