"""The compile cache: keys follow the graph and its constants' bytes, entries come back whole
or not at all."""
import numpy as np
import pytest
from onnx import helper

from build_testing import LIGHT, annotate_build, onnx_graph
from ge_core.compiler.task import build_ge_model
from ge_core.om import CompileCache, cache_key, om_bytes
from ge_core.parser import parse_onnx


def add_const(w):
    return onnx_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                      {"x": [3]}, {"y": [3]}, {"w": np.asarray(w, np.float32)})


def test_the_key_follows_structure_and_constant_bytes_not_the_path():
    key = cache_key(add_const([1, 2, 3]))
    assert len(key) == 64 and key == cache_key(add_const([1, 2, 3]))
    assert key != cache_key(add_const([1, 2, 4]))
    assert key != cache_key(add_const([1, 2, 3]), salt="exclude_engines=AIcoreEngine")
    graph = add_const([1, 2, 3])
    graph.find_node("add").op_desc.set_attr("engine", "DNN_VM_AICPU")
    assert key != cache_key(graph)
    moved = parse_onnx(LIGHT / "light_squeezenet.onnx")
    moved.set_attr("source", "/elsewhere/squeezenet.onnx")
    assert cache_key(moved) == cache_key(parse_onnx(LIGHT / "light_squeezenet.onnx"))


def test_put_then_get_and_a_miss(tmp_path):
    cache = CompileCache(tmp_path / "cache")
    graph = add_const([1, 2, 3])
    key = cache_key(graph)
    assert cache.get(key) is None
    om = om_bytes(build_ge_model(annotate_build(graph)))
    path = cache.put(key, om)
    assert path == tmp_path / "cache" / f"{key}.om" and cache.get(key) == om
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [path.name]  # no temp files left


def test_a_damaged_entry_is_a_miss_and_is_dropped(tmp_path):
    cache = CompileCache(tmp_path)
    key = "0" * 64
    cache.put(key, om_bytes(build_ge_model(annotate_build(add_const([1, 2, 3])))))
    cache.path(key).write_bytes(cache.path(key).read_bytes()[:-1])
    assert cache.get(key) is None and not cache.path(key).exists()


def test_keys_that_are_not_digests_are_refused(tmp_path):
    with pytest.raises(ValueError, match="not a SHA-256 hex digest"):
        CompileCache(tmp_path).get("../../etc/passwd")
