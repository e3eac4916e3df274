"""The stream build on the 9 light models and tiny_cnn after compile_graph: every task on a
stream, every cross-stream dependency ordered by events, outputs unchanged; more streams where
the model has parallel branches."""
import numpy as np
import pytest

from ge_core.compiler import pass_lists
from ge_core.compiler.stream import (StreamOptions, assign_streams, split_streams,
                                     unordered_dependencies)
from ge_core.compiler.stream.stream_utils import launches_task, stream_of
from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import dump_graph, validate
from stream_testing import LIGHT_MODELS, compiled

BRANCHY = ["inception_v1", "inception_v2", "tiny_cnn"]
CHAINS = ["bvlc_alexnet", "vgg19", "zfnet512"]


def check_streams_and_events(graph) -> None:
    validate(graph)
    unplaced = [n.name for n in graph.all_nodes() if launches_task(n) and stream_of(n) < 0]
    assert unplaced == []
    assert unordered_dependencies(graph) == []


@pytest.mark.parametrize("model", LIGHT_MODELS)
def test_default_options(model):
    graph = compiled(model)
    report = assign_streams(graph)
    check_streams_and_events(graph)
    assert report.events == report.events_optimised <= report.events_inserted
    assert report.redundant_found == 0 and report.events == report.events_minimum


@pytest.mark.parametrize("model", [  # DenseNet's two host runs take up to 6 s on a busy machine
    pytest.param(m, marks=pytest.mark.slow) if m == "densenet121" else m for m in LIGHT_MODELS])
def test_four_parallel_streams_keep_the_outputs(model):
    graph = compiled(model)
    feeds = random_feeds(graph)
    want = HostExecutor(graph).run(feeds)
    assign_streams(graph, StreamOptions(stream_max_parallel_num=4))
    check_streams_and_events(graph)
    got = HostExecutor(graph).run(feeds)
    assert list(got) == list(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("model", BRANCHY + CHAINS)
def test_parallel_branches_use_more_streams_when_allowed(model):
    one = assign_streams(compiled(model)).logical_streams
    four = assign_streams(compiled(model), StreamOptions(stream_max_parallel_num=4))
    assert (four.logical_streams > one) == (model in BRANCHY)


def test_minimising_events_on_shufflenet(monkeypatch):
    """GE's rules leave events there that others imply; the reduction finds and drops them.
    (As ShuffleNet compiles with its residual joins and channel shuffles left unfused: fused,
    it has none such.)"""
    monkeypatch.setattr(pass_lists, "conv_eltwise_relu", lambda graph: [])
    monkeypatch.setattr(pass_lists, "shuffle_channel_conv", lambda graph: [])
    kept = assign_streams(compiled("shufflenet"), StreamOptions(stream_max_parallel_num=4))
    assert kept.redundant_found > 0 and kept.events == kept.events_minimum + kept.redundant_found
    graph = compiled("shufflenet")
    minimal = assign_streams(graph, StreamOptions(stream_max_parallel_num=4,
                                                  minimise_events=True))
    assert minimal.events == minimal.events_minimum == kept.events_minimum
    assert minimal.redundant_removed == kept.redundant_found
    check_streams_and_events(graph)


def test_single_stream_on_a_light_model():
    graph = compiled("inception_v1")
    report = assign_streams(graph, StreamOptions(enable_single_stream=True))
    assert report.logical_streams == 1 and report.events == 0
    check_streams_and_events(graph)


def test_splitting_resnet_at_a_small_limit_keeps_order_and_outputs():
    graph = compiled("resnet50")
    feeds = random_feeds(graph)
    want = HostExecutor(graph).run(feeds)
    report = assign_streams(graph, StreamOptions(stream_max_parallel_num=2))
    split = split_streams(graph, options=StreamOptions(max_task_count=64))
    assert split.splits and split.physical_streams > report.logical_streams
    assert max(n for _, n in split.tasks_per_stream) <= 64
    check_streams_and_events(graph)
    got = HostExecutor(graph).run(feeds)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_the_stream_build_is_deterministic():
    dumps = []
    for _ in range(2):
        graph = compiled("inception_v2")
        assign_streams(graph, StreamOptions(stream_max_parallel_num=4))
        split_streams(graph, options=StreamOptions(max_task_count=48))
        dumps.append(dump_graph(graph))
    assert dumps[0] == dumps[1]
