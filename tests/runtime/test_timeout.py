"""An execution that outlives its timeout: the synchronize gives up with 507046, the model is
aborted (aclmdlRIAbort) and the failure reported; the model then runs again, and right."""
import numpy as np
import pytest

from ge_core.compiler import CompileOptions
from ge_core.ge_options import RunMode
from ge_core.runtime.errors import ModelExecuteTimeout
from ge_core.session import GraphManager
from ge_core.runtime.v1 import GraphExecutor
from npu_emu.base.errors import ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
from npu_emu.feature.model import ModelAborted
from npu_emu.scheduler.cost_model import CostModel
from npu_emu.world import World
from workbench.conformance import node_cases
from v1_testing import TINY, device_world, events, feeds_for, ge_model, host_outputs, load

SLOW = CostModel(cube_flops_per_ns=0.01, vector_bytes_per_ns=0.01)   # tiny_cnn: ~20 ms


def test_timeout_aborts_the_model_and_it_runs_again():
    feeds = feeds_for()
    m = ge_model()
    with device_world(cost=SLOW) as world:
        model = load(m)
        with pytest.raises(ModelExecuteTimeout, match="within 1 ms") as caught:
            GraphExecutor.execute_graph(model.model_id, feeds, timeout_ms=1)
        assert caught.value.code == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        assert [e.model_id for e in events(world, ModelAborted)] == [model.rt_model.id]
        assert [f.kind for f in world.runtime.faults] == ["timeout"]
        outputs = GraphExecutor.execute_graph(model.model_id, feeds)
        assert model.last_status == 0 and model.last_execute_ns > 1_000_000
    np.testing.assert_allclose(outputs["prob"], host_outputs(TINY, feeds)["prob"], rtol=1e-5,
                               atol=1e-6)


def test_the_run_loop_reports_a_timeout_to_the_callback():
    m = ge_model()
    with device_world(cost=SLOW):
        model = load(m)
        statuses = []
        model.model_run_start()
        model.stream_sync_timeout_ms = 1
        model.data_inputer.push(feeds_for(), lambda status, _: statuses.append(status))
        model.run_loop.join()
    assert statuses == [ACL_ERROR_RT_STREAM_SYNC_TIMEOUT]


LOOP11 = "test_loop11"   # the node suite's Loop: y accumulates, a scan output per iteration


@pytest.mark.parametrize("mode", [RunMode.HYBRID, RunMode.V2])
def test_a_loop_past_the_timeout_ends_in_a_hybrid_or_v2_run_and_it_runs_again(mode):
    # The host-scheduled runs had no bound: a Loop counting to 2^31 ran for minutes.
    (case,) = [t for t in node_cases.testcases() if t.name == LOOP11]
    model, [(feeds, expected)], _ = node_cases.load(case)
    manager = GraphManager(CompileOptions(dump=None), exec_timeout_ms=1)
    graph = manager.parse(model)
    manager.compile(graph)
    endless = {**feeds, "trip_count": np.array(2**31 - 1, np.int64), "cond": np.array(True)}
    with World().entered():
        root = graph if mode is RunMode.HYBRID else manager.build_root_model(graph, mode)
        with pytest.raises(ModelExecuteTimeout, match="did not finish within 1 ms of device "
                                                      "time and was aborted"):
            manager.run(root, {**endless, "y": feeds["y"]}, mode)
        outputs = manager.run(root, feeds, mode)   # the next run is whole
    for got, want in zip(outputs.values(), expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_hybrid_loop_infers_its_bodys_nodes_once_for_the_shapes_they_see(monkeypatch):
    """Every iteration re-ran each body node's InferShape in a one-node graph of its own: half
    of a hybrid Loop's time, and a runaway Loop took 43 s to reach the default 1000 ms. The
    outputs the input shapes alone decide are kept per shapes (test_loop11's scan output
    grows, so its Concat-like nodes see new shapes; the others one)."""
    import ge_core.runtime.v2.kernel.infer_shape_kernel as kernel
    calls = []
    infer = kernel.infer_specs
    monkeypatch.setattr(kernel, "infer_specs", lambda *a: calls.append(a[0].name) or infer(*a))
    (case,) = [t for t in node_cases.testcases() if t.name == LOOP11]
    model, [(feeds, expected)], _ = node_cases.load(case)
    manager = GraphManager(CompileOptions(dump=None))
    graph = manager.parse(model)
    manager.compile(graph)
    with World().entered():
        few = manager.run(graph, feeds, RunMode.HYBRID)
        once = len(calls)
        again = manager.run(graph, feeds, RunMode.HYBRID)   # lowered again: inferred again
    assert len(calls) == 2 * once
    for got, want, more in zip(few.values(), expected, again.values()):
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_array_equal(got, more)
    trips = int(feeds["trip_count"])
    assert trips > 1 and once < trips * len(set(calls))   # not every node at every iteration
