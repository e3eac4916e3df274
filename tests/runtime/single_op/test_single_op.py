"""Single op (aclopExecute): one op compiled into Data -> op -> NetOutput through the normal
compile and build, cached per stream by (type, shapes, dtypes, attributes), executed on the
device as GE's SingleOpModel does it: BuildTaskList makes TbeOpTask / AiCpuCCTask / AiCpuTask,
ExecuteAsync writes the caller's buffers into their args and launches them; static and dynamic
variants."""
from __future__ import annotations

import numpy as np
import pytest

from ge_core.runtime.single_op import (AiCpuCCTask, DynamicSingleOp, MemcpyAsyncTask,
                                       SingleOp, TbeOpTask, execute_single_op, single_op_graph,
                                       single_op_manager)
from ge_core.stage_events import StageBegin
from ge_core.runtime.v2 import default_stream
from npu_emu.op_impl import get_kernel
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World, current_runtime


@pytest.fixture
def world():
    w = World(RuntimeConfig(memory_bytes=64 << 20))
    with w.entered():
        yield w


def _cache(stream=None):
    return single_op_manager().get_resource(stream or default_stream())


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_the_minimal_graph(world):
    from ge_core.graph import DataType, GeShape, GeTensorDesc
    desc = GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT)
    graph = single_op_graph("Add", [desc, desc], {}, 1, 13)
    assert graph.name == "aclop_Add"
    assert [n.type for n in graph.topological_sort()] == ["Data", "Data", "Add", "NetOutput"]


def test_results_match_the_kernels_on_the_host(world):
    a, b = _x(2, 3), _x(2, 3, seed=1)
    np.testing.assert_array_equal(execute_single_op("Add", [a, b])[0], a + b)
    (y,) = execute_single_op("Softmax", [a], {"axis": 0})
    np.testing.assert_allclose(y, get_kernel("Softmax")(a, axis=0)[0], rtol=1e-6)
    parts = execute_single_op("Split", [np.arange(6, dtype=np.float32)], {"axis": 0},
                              num_outputs=3)
    assert [p.tolist() for p in parts] == [[0, 1], [2, 3], [4, 5]]


def test_the_same_op_twice_compiles_once(world):
    a, b = _x(2, 3), _x(2, 3, seed=1)
    execute_single_op("Add", [a, b])
    (y,) = execute_single_op("Add", [b, b])          # other values, same key: a hit
    np.testing.assert_array_equal(y, b + b)
    cache = _cache()
    assert (cache.hits, cache.misses) == (1, 1)
    (op,) = cache.ops.values()
    assert isinstance(op, SingleOp) and op.executions == 2


@pytest.mark.parametrize("change", ["shape", "dtype", "attr", "type"])
def test_a_different_key_compiles_again(world, change):
    execute_single_op("LeakyRelu", [_x(2, 3)], {"alpha": 0.1})
    other = {"shape": ("LeakyRelu", [_x(3, 3)], {"alpha": 0.1}),
             "dtype": ("LeakyRelu", [_x(2, 3).astype(np.float64)], {"alpha": 0.1}),
             "attr": ("LeakyRelu", [_x(2, 3)], {"alpha": 0.2}),
             "type": ("Relu", [_x(2, 3)], {})}[change]
    execute_single_op(*other)
    assert (_cache().hits, _cache().misses) == (0, 2)


def test_a_dynamic_op_serves_every_shape_of_its_rank(world):
    for shape in [(2, 3), (5, 7), (1, 1)]:
        a, b = _x(*shape), _x(*shape, seed=1)
        (y,) = execute_single_op("Mul", [a, b], dynamic=True)
        np.testing.assert_array_equal(y, a * b)
    cache = _cache()
    assert (cache.hits, cache.misses) == (2, 1)
    (op,) = cache.ops.values()
    assert isinstance(op, DynamicSingleOp) and op.hybrid_model is None
    assert isinstance(op.op_task, TbeOpTask) and op.executions == 3


def test_static_and_dynamic_agree(world):
    a = _x(4, 6)
    static = execute_single_op("Transpose", [a], {"perm": [1, 0]})
    dynamic = execute_single_op("Transpose", [a], {"perm": [1, 0]}, dynamic=True)
    np.testing.assert_array_equal(static[0], dynamic[0])
    np.testing.assert_array_equal(static[0], a.T)
    assert [type(op) for op in _cache().ops.values()] == [SingleOp, DynamicSingleOp]


def test_a_shape_that_depends_on_an_input_value_makes_the_op_dynamic(world):
    a = _x(4, 6)
    for axis in (0, 1):
        (y,) = execute_single_op("ReduceSum", [a, np.array([axis])], {"keepdims": 0})
        np.testing.assert_allclose(y, a.sum(axis=axis), rtol=1e-5)
    (op,) = _cache().ops.values()
    assert isinstance(op, DynamicSingleOp) and op.executions == 2
    assert op.op_task is None and op.hybrid_model is not None   # NeedHybridModel: infer depend


def test_scalars_and_absent_optional_inputs(world):
    x = np.array([-2.0, 0.5, 3.0], np.float32)
    (y,) = execute_single_op("Clip", [x, None, np.array(1.0, np.float32)])
    np.testing.assert_array_equal(y, [-2.0, 0.5, 1.0])
    (s,) = execute_single_op("Add", [np.array(2.0, np.float32), np.array(3.0, np.float32)])
    assert s.shape == () and s == 5.0


def test_each_stream_has_its_own_cache(world):
    default_stream()   # sets device 0
    other = current_runtime().create_stream()
    execute_single_op("Relu", [_x(2)])
    execute_single_op("Relu", [_x(2)], stream=other)
    assert _cache().misses == 1 and _cache(other).misses == 1
    single_op_manager().release_resource(other)
    assert other.id not in single_op_manager().resources


def test_build_task_list_picks_the_task_by_kernel_type(world):
    """A float Add is a TBE kernel, an int16 Add (not in the AI Core store's dtypes) CANN's AI
    CPU kernel (KERNEL, AI_CPU): one task each, and the arg table points each input and output
    at its entry in the task's args."""
    x = np.arange(6, dtype=np.int16)
    np.testing.assert_array_equal(execute_single_op("Add", [x, x])[0], 2 * x)
    execute_single_op("Add", [_x(6), _x(6)])
    ints, floats = _cache().ops.values()
    assert [type(t) for t in ints.tasks] == [AiCpuCCTask]
    assert [type(t) for t in floats.tasks] == [TbeOpTask]
    (task,) = floats.tasks
    assert floats.arg_table == [[(task, 0)], [(task, 1)], [(task, 2)]]


def test_an_execution_launches_the_tasks_no_model_and_no_executor(world):
    """Each call is one ExecuteAsync: the task straight on the stream, with the caller's
    buffers in its args (not the model's feature map), and no Init / Main of a v2 executor."""
    stages: list[str] = []
    world.bus.subscribe(lambda e: stages.append(e.stage) if isinstance(e, StageBegin) else None)
    a, b = _x(2, 3), _x(2, 3, seed=1)
    execute_single_op("Mul", [a, b])
    first = stages.index("BuildOp")
    np.testing.assert_array_equal(execute_single_op("Mul", [b, a])[0], a * b)
    assert stages[first:] == ["BuildOp", "ExecuteAsync", "ExecuteAsync"]
    (op,) = _cache().ops.values()
    fm = op.memory.segment("feature_map")
    assert not any(fm.device_base <= addr < fm.device_base + fm.size for addr in op.tasks[0].args)


def test_an_op_a_pass_removed_copies_its_input_to_its_output(world):
    """Identity leaves Data -> NetOutput: no kernel, a device-to-device copy instead (GE's
    MemcpyAddrAsyncPass), so the output is the input, not whatever the buffer held."""
    a = _x(2, 3)
    np.testing.assert_array_equal(execute_single_op("Identity", [a])[0], a)
    (op,) = _cache().ops.values()
    assert [type(t) for t in op.tasks] == [MemcpyAsyncTask]
