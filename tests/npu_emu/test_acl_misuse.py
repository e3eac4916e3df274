"""The facade fails like pyACL: every misuse returns the code CANN's C layer returns for it
(acl_base_rt.h / rt_error_codes.h, the aclrt*Impl checks), never a Python exception, never a
success that corrupts memory, and the device stays usable after it."""
import json
import os

import numpy as np
import pytest

import npu_emu.acl as acl
from conftest import make_runtime
from npu_emu.acl import _call
from npu_emu.acl.c_types import ArgumentError
from npu_emu.acl.constants import (ACL_DT_UNDEFINED, ACL_ERROR_FILE_ATTR_INVALID,
                                   ACL_ERROR_INVALID_FILE, ACL_ERROR_INVALID_PARAM,
                                   ACL_ERROR_PARSE_FILE, ACL_ERROR_RT_AICORE_EXCEPTION,
                                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                   ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_MEMORY_ALLOCATION,
                                   ACL_ERROR_RT_PARAM_INVALID, ACL_MEMCPY_DEVICE_TO_HOST,
                                   ACL_MEMCPY_HOST_TO_DEVICE)
from npu_emu.errors import InvalidParamError
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World

D2H, H2D = ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE


@pytest.fixture
def rt():
    runtime = make_runtime()
    with World(runtime=runtime).entered():
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        yield runtime


def device_bytes(ptr, n):
    host, _ = acl.rt.malloc_host(n)
    assert acl.rt.memcpy(host, n, ptr, n, D2H) == 0
    return acl.util.ptr_to_bytes(host, n)


def filled(n, value):
    ptr, ret = acl.rt.malloc(n, 0)
    assert ret == 0 and acl.rt.memset(ptr, n, value, n) == 0
    return ptr


def assert_device_usable():
    """A round trip through memory and a kernel still works."""
    x = np.arange(4, dtype=np.float32)
    dev = filled(16, 0)
    assert acl.rt.memcpy(dev, 16, acl.util.numpy_to_ptr(x), 16, H2D) == 0
    assert acl.rt.launch_kernel("Neg", [(dev, (4,), "float32")], [(dev, (4,), "float32")],
                                None, 0) == 0
    assert acl.rt.synchronize_stream(0) == 0
    assert np.frombuffer(device_bytes(dev, 16), np.float32).tolist() == [0, -1, -2, -3]


# -- a negative size never passes a bounds check -----------------------------------------------
def test_a_kernel_shaped_minus_one_is_refused_and_the_next_allocation_keeps_its_bytes(rt):
    small, neighbour = filled(16, 0), filled(4096, 7)
    stream, _ = acl.rt.create_stream()
    for shape in [(-1,), (-1, -4)]:   # (-1, -4) has a positive product: every dim is checked
        arg = [(small, shape, "float32")]
        assert acl.rt.launch_kernel("Relu", arg, arg, None, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.synchronize_stream(stream) == 0
    assert device_bytes(neighbour, 4096) == bytes([7]) * 4096
    assert_device_usable()


def test_a_kernel_argument_larger_than_any_address_range_is_invalid(rt):
    small = filled(16, 0)
    for shape in [(10**400,), (2**62, 2**62)]:
        arg = [(small, shape, "float32")]
        assert acl.rt.launch_kernel("Relu", arg, arg, None, 0) == ACL_ERROR_INVALID_PARAM
    assert_device_usable()


def test_memset_of_minus_one_bytes_is_refused_and_memory_keeps_its_bytes(rt):
    small, neighbour = filled(16, 1), filled(4096, 7)
    assert acl.rt.memset(small, 16, 0, -1) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memset(small, -1, 0, 16) == ACL_ERROR_INVALID_PARAM
    assert device_bytes(small, 16) == bytes([1]) * 16
    assert device_bytes(neighbour, 4096) == bytes([7]) * 4096


def test_the_memory_layer_refuses_a_negative_size_itself(rt):
    memory = rt.device(0).memory
    ptr = filled(16, 0)
    with pytest.raises(InvalidParamError):
        memory.check(ptr, -1)
    with pytest.raises(InvalidParamError):
        memory.view(ptr, (-1, -4), np.float32)
    with pytest.raises(InvalidParamError):
        rt.host.view(acl.rt.malloc_host(16)[0], (-1, -4), np.float32)


# -- sizes and values the C types cannot hold, or the host cannot give --------------------------
def test_host_allocations_too_large_return_the_runtimes_allocation_error(rt):
    assert acl.rt.malloc_host(2**47) == (None, ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert acl.rt.malloc_host(2**63) == (None, ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert acl.rt.malloc_host(2**64) == (None, ACL_ERROR_INVALID_PARAM)   # no size_t holds it
    assert acl.rt.malloc_host(0)[1] == ACL_ERROR_INVALID_PARAM    # ACL_REQUIRES_POSITIVE
    assert acl.rt.malloc(0, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.rt.malloc_host(16)[1] == 0


def test_memcpy_of_a_negative_count_is_invalid_and_of_zero_is_a_no_op(rt):
    dev = filled(16, 3)
    host, _ = acl.rt.malloc_host(16)
    assert acl.rt.memcpy(dev, 16, host, -1, H2D) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy_async(dev, 16, host, -1, H2D, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy(dev, 16, host, 0, 9) == 0    # aclrtMemcpy: count 0 returns at once
    assert acl.rt.memcpy(dev, 16, host, 16, 9) == ACL_ERROR_INVALID_PARAM   # unknown kind
    assert device_bytes(dev, 16) == bytes([3]) * 16


def test_memset_writes_the_values_low_byte_as_drvMemsetD8_does(rt):
    dev = filled(16, 0)
    assert acl.rt.memset(dev, 16, 300, 16) == 0
    assert device_bytes(dev, 16) == bytes([300 & 0xFF]) * 16
    assert acl.rt.memset(dev, 16, -1, 16) == 0
    assert device_bytes(dev, 16) == b"\xff" * 16
    assert acl.rt.memset(dev, 16, 2**31, 16) == ACL_ERROR_INVALID_PARAM   # not an int32_t


@pytest.mark.parametrize("dtype", ["bogus", "object", "U4", None])
def test_a_kernel_argument_dtype_numpy_or_the_device_cannot_hold_is_invalid(rt, dtype):
    dev = filled(16, 0)
    arg = [(dev, (4,), dtype)]
    assert acl.rt.launch_kernel("Relu", arg, [(dev, (4,), "float32")], None, 0) == \
        ACL_ERROR_INVALID_PARAM
    assert_device_usable()


# -- paths, files, configs ---------------------------------------------------------------------
def test_an_int_is_not_a_model_path_and_stdout_stays_open(rt):
    assert acl.mdl.load_from_file(1) == (None, ACL_ERROR_INVALID_PARAM)
    os.fstat(1)   # still open: the int was never taken for a file descriptor


def test_a_path_holding_nul_is_invalid(rt):
    assert acl.mdl.load_from_file("model\0.om") == (None, ACL_ERROR_INVALID_PARAM)
    with World(runtime=make_runtime()).entered():
        assert acl.init("acl\0.json") == ACL_ERROR_INVALID_PARAM


@pytest.mark.parametrize("content, code", [
    ("[1, 2]", ACL_ERROR_PARSE_FILE),                       # JSON, but not an object
    ("{not json", ACL_ERROR_PARSE_FILE),
    ("[" * 100_000, ACL_ERROR_PARSE_FILE),                  # nested past any parser's limit
    ('{"npu_emu": [1]}', ACL_ERROR_PARSE_FILE),
    ('{"npu_emu": {"memory_bytes": "1G"}}', ACL_ERROR_FILE_ATTR_INVALID),
    ('{"npu_emu": {"device_count": 0}}', ACL_ERROR_FILE_ATTR_INVALID),
    ('{"npu_emu": {"cost": {}}}', ACL_ERROR_FILE_ATTR_INVALID),
    ("", 0), ('{"dump": {}}', 0)])
def test_acl_init_answers_a_bad_config_as_aclInit_does(tmp_path, content, code):
    cfg = tmp_path / "acl.json"
    cfg.write_text(content)
    with World(runtime=make_runtime()).entered():
        assert acl.init(str(cfg)) == code


def test_acl_init_of_a_file_that_cannot_be_read_is_an_invalid_file(tmp_path):
    with World(runtime=make_runtime()).entered():
        assert acl.init(str(tmp_path / "missing.json")) == ACL_ERROR_INVALID_FILE
        assert acl.init(str(tmp_path)) == ACL_ERROR_INVALID_FILE   # a directory
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        assert acl.init(str(fifo)) == ACL_ERROR_INVALID_FILE       # whose open would block
        assert acl.init() == 0


def test_a_runtime_config_is_checked_when_made():
    for bad in [{"memory_bytes": -512}, {"memory_bytes": 1000}, {"sq_depth": "8"},
                {"race_check": 1}, {"host_sq_max_count": 41, "soc_version": "Ascend950"},
                {"soc_version": "Ascend310"}, {"soc_version": 910}]:
        with pytest.raises(InvalidParamError):
            RuntimeConfig(**bad)


# -- destroyed handles stay dead ---------------------------------------------------------------
def test_destroying_an_event_twice_is_an_invalid_handle(rt):
    event, _ = acl.rt.create_event()
    assert acl.rt.destroy_event(event) == 0
    assert acl.rt.destroy_event(event) == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.record_event(event, 0) == ACL_ERROR_RT_INVALID_HANDLE


def test_a_destroyed_stream_is_never_complete_but_an_invalid_handle(rt):
    stream, _ = acl.rt.create_stream()
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.stream_query(stream) == (None, ACL_ERROR_RT_INVALID_HANDLE)
    assert acl.rt.synchronize_stream(stream) == ACL_ERROR_RT_INVALID_HANDLE


@pytest.mark.parametrize("dead_by", ["destroy_stream", "reset_device"])
def test_an_empty_async_copy_on_a_dead_stream_is_an_invalid_handle(rt, dead_by):
    # count 0 used to return success before the stream was looked at (found by the acl fuzz
    # target's seed-1 run: a memcpy_async after reset_device succeeded on a destroyed stream)
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(64, 0)
    host, _ = acl.rt.malloc_host(64)
    if dead_by == "destroy_stream":
        assert acl.rt.destroy_stream(stream) == 0
    else:
        assert acl.rt.reset_device(0) == 0 and acl.rt.set_device(0) == 0
    assert acl.rt.memcpy_async(dev, 64, host, 0, H2D, stream) == ACL_ERROR_RT_INVALID_HANDLE
    live, _ = acl.rt.create_stream()
    assert acl.rt.memcpy_async(host, 64, host, 0, H2D, live) == 0   # empty: any pointers


def test_a_destroyed_context_takes_its_streams_and_a_reset_everything_on_the_device(rt):
    ctx, _ = acl.rt.create_context(0)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.destroy_context(ctx) == 0
    assert acl.rt.stream_query(stream)[1] == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.set_context(ctx) == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.set_device(0) == 0
    stream, _ = acl.rt.create_stream()
    event, _ = acl.rt.create_event()
    model, _ = acl.mdl.ri_build_begin(0)
    assert acl.rt.reset_device(0) == 0 and acl.rt.set_device(0) == 0
    assert acl.rt.stream_query(stream)[1] == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.query_event_status(event)[1] == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.mdl.ri_destroy(model) == ACL_ERROR_RT_INVALID_HANDLE
    assert_device_usable()


def test_value_only_calls_return_the_c_calls_failure_value(rt):
    assert acl.mdl.get_num_inputs(12345) == 0
    assert acl.mdl.get_input_name_by_index(None, 0) == ""
    assert acl.mdl.get_input_data_type(12345, 0) == ACL_DT_UNDEFINED
    assert acl.get_data_buffer_addr("1") == 0
    buffer = acl.create_data_buffer(0, 0)       # NULL, 0: an empty buffer is allowed
    assert buffer != 0 and acl.destroy_data_buffer(buffer) == 0
    assert acl.get_data_buffer_size(buffer) == 0
    assert acl.util.ptr_to_bytes(12345, 4) is None
    assert acl.util.numpy_to_ptr([1, 2]) == 0


# -- wrong Python types: one check, for every API ---------------------------------------------
def facade_apis():
    for module in (acl, acl.rt, acl.mdl, acl.util):
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if callable(fn) and hasattr(fn, "__wrapped__"):
                yield f"{module.__name__}.{name}", fn


def test_every_facade_api_declares_a_c_type_for_each_parameter():
    apis = dict(facade_apis())
    assert len(apis) > 90
    for fn in apis.values():
        _call._Parameters(fn.__wrapped__)   # raises TypeError for a parameter without one


def _fits(ctype, value):
    try:
        ctype.convert(value)
    except ArgumentError:
        return False
    return True


@pytest.mark.parametrize("wrong", [None, "1", 1.5, [1], -(2**70)])
def test_a_wrong_python_type_anywhere_is_invalid_param_in_pyacls_shape(rt, wrong):
    for name, fn in facade_apis():
        ctypes = _call._Parameters(fn.__wrapped__).types.values()
        if all(_fits(ctype, wrong) for ctype in ctypes):   # no wrong type here ("1" is a path)
            continue
        result = fn(*[wrong] * len(ctypes))
        if fn.value_only:   # its failure value, and the reason in the error message
            assert result in (0, "", None, ACL_DT_UNDEFINED), name
        elif isinstance(result, tuple):
            assert result[-1] == ACL_ERROR_INVALID_PARAM and set(result[:-1]) == {None}, name
        else:
            assert result == ACL_ERROR_INVALID_PARAM, name
        assert "is not" in acl.get_recent_err_msg(), name
    assert_device_usable()


def test_a_timeout_below_minus_one_is_invalid(rt):
    stream, _ = acl.rt.create_stream()
    assert acl.rt.synchronize_stream_with_timeout(stream, -2) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.synchronize_stream_with_timeout(stream, -1) == 0
    model, _ = acl.mdl.ri_build_begin(0)
    assert acl.mdl.ri_execute(model, -5) == ACL_ERROR_RT_PARAM_INVALID


def test_numpy_integers_are_ints_as_pyacl_takes_them(rt):
    ptr, ret = acl.rt.malloc(np.int64(64), np.int32(0))
    assert ret == 0 and acl.rt.memset(ptr, np.uint64(64), np.int8(5), np.int64(64)) == 0
    assert device_bytes(ptr, 64) == bytes([5]) * 64


# -- host callbacks ----------------------------------------------------------------------------
def test_a_callback_that_waits_on_the_device_is_refused_and_the_stream_goes_on(rt):
    answers = []
    stream, _ = acl.rt.create_stream()
    acl.rt.launch_callback(lambda _: answers.append(acl.rt.synchronize_device()), None, 0, stream)
    acl.rt.launch_callback(lambda _: answers.append(acl.rt.reset_device(0)), None, 0, stream)
    dev = filled(16, 0)
    acl.rt.memset(dev, 16, 9, 16)
    assert acl.rt.synchronize_stream(stream) == 0
    assert answers == [ACL_ERROR_RT_FEATURE_NOT_SUPPORT] * 2
    assert "host callback" in acl.get_recent_err_msg()
    assert_device_usable()


def test_a_callback_that_raises_is_a_task_fault_reported_at_synchronize(rt):
    stream, _ = acl.rt.create_stream()

    def fails(_):
        raise ValueError("bad user data")
    assert acl.rt.launch_callback(fails, None, 0, stream) == 0
    assert acl.rt.synchronize_stream(stream) == ACL_ERROR_RT_AICORE_EXCEPTION
    assert [f.kind for f in rt.faults] == ["task"] and "bad user data" in rt.faults[0].message
    assert acl.rt.launch_callback("not a function", None, 0, stream) == ACL_ERROR_INVALID_PARAM
    assert_device_usable()


def test_json_config_file_reads_are_bounded(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"pad": "x" * (2 << 20)}))
    with World(runtime=make_runtime()).entered():
        assert acl.init(str(big)) == ACL_ERROR_PARSE_FILE


def test_unbinding_a_stream_of_a_model_queued_to_run_is_refused_and_the_device_syncs(rt):
    # unbind cleared the SQ under an SQE the TS held in flight, and the next synchronize raised
    # IndexError (found by the acl fuzz target's seed-1 run)
    model, _ = acl.mdl.ri_build_begin(0)
    bound, _ = acl.rt.create_stream()
    assert acl.mdl.ri_bind_stream(model, bound, 0) == 0
    assert acl.mdl.ri_end_task(model, bound) == 0 and acl.mdl.ri_build_end(model) == 0
    caller, _ = acl.rt.create_stream()
    assert acl.mdl.ri_execute_async(model, caller) == 0
    assert acl.mdl.ri_unbind_stream(model, bound) != 0
    assert acl.rt.synchronize_device() == 0
    assert_device_usable()
