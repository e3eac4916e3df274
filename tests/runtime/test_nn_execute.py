"""NnExecute: host inputs copied in and outputs copied out; caller's device buffers bound into the
args tables (zero-copy) with no copy at all; the device's numbers equal the host reference."""
import numpy as np
import pytest

from ge_core.runtime.errors import ModelInputError, ModelOutputError
from ge_core.runtime.model_io import DeviceBuffer
from npu_emu.scheduler.events import SqeCompleted
from npu_emu.scheduler.task import TaskType
from v1_testing import TINY, device_world, events, feeds_for, ge_model, host_outputs, light, load


def _memcpys(world) -> int:
    return sum(e.task.type == TaskType.MEMCPY for e in events(world, SqeCompleted))


def _device_buffer(world, array: np.ndarray) -> DeviceBuffer:
    runtime = world.runtime
    addr = runtime.malloc(array.nbytes)
    runtime.device().memory.write(addr, np.ascontiguousarray(array))
    return DeviceBuffer(addr, array.nbytes)


def _read(world, buffer: DeviceBuffer, like: np.ndarray) -> np.ndarray:
    return world.runtime.device().memory.view(buffer.addr, like.shape, like.dtype).copy()


@pytest.mark.parametrize("path", [TINY, light("resnet50")], ids=["tiny_cnn", "resnet50"])
def test_device_equals_host(path):
    feeds = feeds_for(path)
    expected = host_outputs(path, feeds)
    m = ge_model(path)
    with device_world():
        outputs = load(m).nn_execute(feeds)
    assert list(outputs) == list(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(outputs[name], value, rtol=1e-5, atol=1e-6)


def test_host_arrays_are_copied_in_and_out():
    """Sync mode copies with aclrtMemcpy, on no stream (GE's CopyInputData / CopyOutputData
    when not is_async_mode_): the host writes the input and reads the output, no memcpy SQE."""
    from npu_emu.driver.events import HostMemAccess
    feeds = feeds_for()
    m = ge_model()
    with device_world() as world:
        model = load(m)
        before = len(events(world, HostMemAccess))
        model.nn_execute(feeds)
        accesses = events(world, HostMemAccess)[before:]
        assert _memcpys(world) == 0
        assert [a.write for a in accesses] == [True, False]   # the input in, the output out


def test_sync_mode_runs_the_model_with_acl_mdl_ri_execute_on_the_runtimes_stream():
    """GE's NnExecute without a stream: the model stream is a forbidden one, and
    aclmdlRIExecute (rtModelExecuteSync) runs the model on the runtime's own stream, no
    context's, and waits; with a stream, the execution is queued there (aclmdlRIExecuteAsync)."""
    from npu_emu.feature.model import ModelExecuted
    feeds = feeds_for()
    m = ge_model()
    with device_world() as world:
        model = load(m)
        model.nn_execute(feeds)
        (sync,) = events(world, ModelExecuted)
        own = model.rt_model.own_stream()
        assert sync.stream_id == own.id and own.context is None
        assert own not in world.runtime.context().streams
        caller = world.runtime.create_stream()
        x = _device_buffer(world, feeds["input"])
        (expected,) = host_outputs(TINY, feeds).values()
        y = _device_buffer(world, np.zeros_like(expected))
        model.nn_execute([x], [y], stream=caller)
        assert caller.synchronize() == 0
        assert events(world, ModelExecuted)[-1].stream_id == caller.id
        np.testing.assert_allclose(_read(world, y, expected), expected, rtol=1e-5, atol=1e-6)


def test_bound_device_buffers_need_no_copy_and_receive_the_output():
    feeds = feeds_for()
    (expected,) = host_outputs(TINY, feeds).values()
    m = ge_model()
    with device_world() as world:
        model = load(m)
        x = _device_buffer(world, feeds["input"])
        y = _device_buffer(world, np.zeros_like(expected))
        assert model.nn_execute([x], [y]) is None
        assert _memcpys(world) == 0
        np.testing.assert_allclose(_read(world, y, expected), expected, rtol=1e-5, atol=1e-6)
        # the tasks that read the input and write the output now point at the caller's buffers
        first, last = model.task_infos[0].task, model.task_infos[-2].task
        assert first.inputs[0].addr == x.addr and last.outputs[0].addr == y.addr


def test_rebinding_rewrites_the_args_and_returning_to_host_arrays_restores_them():
    feeds = feeds_for()
    m = ge_model()
    with device_world() as world:
        model = load(m)
        (offset,) = model.io.zero_copy_inputs
        reader = model.task_infos[0]
        a = _device_buffer(world, feeds["input"])
        b = _device_buffer(world, 2 * feeds["input"])
        out = _device_buffer(world, np.zeros((1, 10), np.float32))
        model.nn_execute([a], [out])
        model.nn_execute([b], [out])
        assert reader.task.inputs[0].addr == b.addr
        assert offset.users == [reader]
        result = model.nn_execute(feeds)
        assert reader.task.inputs[0].addr == offset.internal
        np.testing.assert_allclose(result["prob"], host_outputs(TINY, feeds)["prob"],
                                   rtol=1e-5, atol=1e-6)


def test_inputs_and_outputs_that_do_not_match_are_refused():
    m = ge_model()
    with device_world() as world:
        model = load(m)
        with pytest.raises(ModelInputError, match="no value for input"):
            model.nn_execute({})
        with pytest.raises(ModelInputError, match=r"input input: dtype int32, the model takes "
                                                  r"float32"):
            model.nn_execute([np.zeros((1, 3, 16, 16), np.int32)])
        # the right byte count is not enough: a host array's shape is the model's or refused
        for shape in ((768,), (1, 16, 16, 3)):
            with pytest.raises(ModelInputError, match=rf"shape \[{', '.join(map(str, shape))}\], "
                                                      r"the model takes \[1, 3, 16, 16\]"):
                model.nn_execute([np.zeros(shape, np.float32)])
        small = DeviceBuffer(world.runtime.malloc(16), 16)
        with pytest.raises(ModelInputError, match="needs 3072 bytes"):
            model.nn_execute([small])
        with pytest.raises(ModelOutputError, match="1 outputs, 2 buffers"):
            model.nn_execute(feeds_for(), [small, small])


def test_an_output_that_is_an_input_is_copied_from_it():
    """Data -> Flatten -> NetOutput: no task writes the output, so it is copied."""
    from pathlib import Path

    import onnx
    path = str(Path(onnx.__file__).parent / "backend" / "test" / "data" / "pytorch-operator"
               / "test_operator_flatten" / "model.onnx")
    feeds = feeds_for(path)
    m = ge_model(path)
    with device_world():
        model = load(m)
        assert model.io.zero_copy_outputs == [None]
        (out,) = model.nn_execute(feeds).values()
    np.testing.assert_array_equal(out, next(iter(feeds.values())).reshape(1, 24))
