"""The Run loop: a resident thread executing what the DataInputer queues, one item after another,
each reported to its callback; it runs only while the caller joins it, so the device is driven
by one thread at a time and the trace is the same on every run."""
import threading
from collections import deque

import numpy as np
import pytest

from ge_core.runtime.v1 import GraphExecutor, GraphLoader, ModelManager
from ge_core.runtime.v1.data_inputer import DataInputer
from npu_emu.base.errors import ACL_ERROR_RT_END_OF_SEQUENCE
from npu_emu.world import current_world
from v1_testing import TINY, device_world, feeds_for, ge_model, host_outputs, load


def test_several_queued_inputs_run_in_order_on_the_loop_thread():
    feeds = [feeds_for(seed=s) for s in range(3)]
    m = ge_model()
    with device_world():
        model = load(m)
        done = []

        def callback(status, outputs):
            done.append((status, outputs["prob"], threading.current_thread().name))

        indices = [GraphExecutor.execute_graph_async(model.model_id, f, callback) for f in feeds]
        assert indices == [0, 1, 2] and done == []   # queued: nothing ran yet
        model.run_loop.join()
        assert [d[0] for d in done] == [0, 0, 0]
        assert {d[2] for d in done} == {f"ge-model-{model.model_id}-run"}
        for (_, prob, _), f in zip(done, feeds):
            np.testing.assert_allclose(prob, host_outputs(TINY, f)["prob"], rtol=1e-5,
                                       atol=1e-6)
        loop = model.run_loop
        model.model_run_stop()
        assert not loop.running


def test_the_loop_thread_works_in_the_callers_world():
    with device_world() as world:
        model = load(ge_model())
        seen = []
        GraphExecutor.execute_graph_async(model.model_id, feeds_for(),
                                          lambda status, outputs: seen.append(current_world()))
        model.run_loop.join()
        model.model_run_stop()
    assert seen == [world]


def test_end_of_sequence_is_reported_with_its_code():
    m = ge_model()
    with device_world():
        model = load(m)
        statuses = []
        model.model_run_start()
        model.data_inputer.push(feeds_for(), lambda status, _: statuses.append(status))
        model.data_inputer.push_end_of_sequence(lambda status, out: statuses.append((status,
                                                                                     out)))
        model.run_loop.join()
    assert statuses == [0, (ACL_ERROR_RT_END_OF_SEQUENCE, {})]


def test_a_failing_callback_is_raised_in_the_caller_and_ends_the_loop():
    m = ge_model()
    with device_world():
        model = load(m)

        def boom(status, outputs):
            raise ValueError("callback failed")

        GraphExecutor.execute_graph_async(model.model_id, feeds_for(), boom)
        with pytest.raises(ValueError, match="callback failed"):
            model.run_loop.join()
        assert not model.run_loop.running
        model.run_loop.join()   # nothing left to hand over to: returns at once


def test_a_bad_input_is_reported_as_its_code_and_the_loop_goes_on():
    m = ge_model()
    with device_world():
        model = load(m)
        statuses = []
        model.model_run_start()
        model.data_inputer.push({}, lambda status, _: statuses.append(status))
        model.data_inputer.push(feeds_for(), lambda status, _: statuses.append(status))
        model.run_loop.join()
    assert statuses == [100017, 0]   # ACL_ERROR_MODEL_INPUT_NOT_MATCH, then a good run


def test_load_with_queues_reads_the_input_queue_and_fills_the_output_queue():
    m = ge_model()
    with device_world():
        inputs, results = DataInputer(), deque()
        model_id = GraphLoader.load_model_with_q(m, inputs, results)
        model = ModelManager.get_instance().get_model(model_id)
        for seed in (0, 1):
            inputs.push(feeds_for(seed=seed))
        model.run_loop.join()
        assert [status for status, _ in results] == [0, 0]
        GraphLoader.unload_model(model_id)
        assert not model.run_loop or not model.run_loop.running


def test_a_loop_nobody_stopped_ends_when_its_runtime_closes():
    """A program that ends without ModelRunStop (no finalize): the loop's thread ends with the
    runtime and runs nothing more, where it waited for a turn forever, holding the world."""
    with device_world():
        model = load(ge_model())
        ran = []
        GraphExecutor.execute_graph_async(model.model_id, feeds_for(),
                                          lambda status, outputs: ran.append(status))
        loop = model.run_loop
        assert loop.running
    loop._thread.join(5)
    assert not loop.running and ran == []
