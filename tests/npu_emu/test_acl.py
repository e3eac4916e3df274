"""The pyACL-shaped facade: (value, ret) pairs, ACL codes, handles, host pointers."""
import json

import numpy as np
import pytest

import npu_emu.acl as acl
from conftest import make_runtime
from npu_emu.acl.constants import (ACL_ERROR_FILE_ATTR_INVALID, ACL_ERROR_REPEAT_INITIALIZE,
                                   ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_INVALID_HANDLE,
                                   ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_PARAM_INVALID,
                                   ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_MEMCPY_DEVICE_TO_HOST,
                                   ACL_MEMCPY_HOST_TO_DEVICE, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
                                   ACL_MODEL_STREAM_FLAG_HEAD, ACL_STREAM_STATUS_COMPLETE,
                                   NPY_FLOAT32)
from npu_emu.world import World, current_runtime


@pytest.fixture
def fresh():
    rt = make_runtime()
    with World(runtime=rt).entered():
        assert acl.init() == 0
        assert acl.rt.set_device(0) == 0
        yield rt


def test_init_twice_bad_device_and_bad_handles_return_codes(fresh):
    assert acl.init() == ACL_ERROR_REPEAT_INITIALIZE
    assert acl.rt.set_device(3) == ACL_ERROR_RT_INVALID_DEVICEID
    assert "device 3" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(12345) == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.malloc(1 << 40, 0) == (None, ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert acl.rt.get_device() == (0, 0) and acl.rt.get_device_count() == (1, 0)


def test_memcpy_event_and_kernel_round_trip(fresh):
    ctx, ret = acl.rt.create_context(0)
    assert ret == 0 and acl.rt.get_context() == (ctx, 0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream_with_config(1, 0)
    x = np.arange(16, dtype=np.float32)
    dev, _ = acl.rt.malloc(64, 0)
    out, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memcpy(dev, 64, acl.util.numpy_to_ptr(x), 64, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    assert acl.rt.memcpy(dev, 32, acl.util.numpy_to_ptr(x), 64, 1) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memcpy(dev, 64, dev, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_RT_PARAM_INVALID
    ev, _ = acl.rt.create_event()
    assert acl.rt.launch_kernel("Neg", [(dev, (16,), "float32")], [(out, (16,), "float32")],
                                None, s1) == 0
    acl.rt.record_event(ev, s1)
    acl.rt.stream_wait_event(s2, ev)
    host, _ = acl.rt.malloc_host(64)
    acl.rt.memcpy_async(host, 64, out, 64, ACL_MEMCPY_DEVICE_TO_HOST, s2)
    assert acl.rt.synchronize_stream(s2) == 0
    assert acl.rt.query_event_status(ev) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert acl.rt.stream_query(s1) == (ACL_STREAM_STATUS_COMPLETE, 0)
    np.testing.assert_array_equal(acl.util.ptr_to_numpy(host, (16,), NPY_FLOAT32), -x)
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(b"abc"), 3) == b"abc"
    assert acl.rt.memset(dev, 64, 0, 64) == 0 and acl.rt.free(dev) == 0
    assert acl.rt.free(dev) != 0
    free, total, ret = acl.rt.get_mem_info(0)
    assert ret == 0 and 0 < free <= total
    assert acl.rt.destroy_stream(s1) == 0 and acl.rt.destroy_context(ctx) == 0


def test_model_ri_calls_and_capture_calls(fresh):
    s, _ = acl.rt.create_stream()
    caller, _ = acl.rt.create_stream()
    model, ret = acl.mdl.ri_build_begin(0)
    assert ret == 0
    assert acl.mdl.ri_bind_stream(model, s, ACL_MODEL_STREAM_FLAG_HEAD) == 0
    assert acl.mdl.ri_set_name(model, "m") == 0
    assert acl.mdl.ri_execute(model, -1) != 0          # not built yet
    assert acl.mdl.ri_end_task(model, s) == 0 and acl.mdl.ri_build_end(model, None) == 0
    assert acl.mdl.ri_execute(model, -1) == 0
    assert acl.mdl.ri_execute_async(model, caller) == 0
    assert acl.rt.synchronize_stream(caller) == 0
    assert acl.mdl.ri_abort(model) == 0 and acl.mdl.ri_destroy(model) == 0
    assert acl.mdl.ri_destroy(model) != 0

    cap, _ = acl.rt.create_stream()
    assert acl.mdl.ri_capture_begin(cap, 0) == 0
    status, captured, ret = acl.mdl.ri_capture_get_info(cap)
    assert status == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE and ret == 0
    assert acl.rt.synchronize_device() != 0           # forbidden while capturing
    graph, ret = acl.mdl.ri_capture_end(cap)
    assert graph is None and ret != 0                 # ... and it invalidated the capture


def test_acl_json_configures_the_runtime(tmp_path):
    cfg = tmp_path / "acl.json"
    cfg.write_text(json.dumps({"npu_emu": {"host_sq_max_count": 48, "soc_version": "Ascend950"}}))
    rt = make_runtime()
    with World(runtime=rt).entered():
        assert acl.init(str(cfg)) == 0
        assert current_runtime().config.host_sq_max_count == 48
        assert current_runtime().config.soc.config == "950"
        assert acl.finalize() == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"npu_emu": {"no_such_knob": 1}}))
    with World(runtime=make_runtime()).entered():
        assert acl.init(str(bad)) == ACL_ERROR_FILE_ATTR_INVALID
