"""The conformance suites: which cases exist, and the inputs and expected outputs of each.

Every case comes from the backend test data the installed onnx wheel ships (read in place, never
copied). Discovery is cheap; a case's data is loaded only when it runs, because for light-random
loading means generating half a gigabyte of weights and running onnxruntime.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import onnx
from onnx import numpy_helper

from workbench.conformance import light_random, node_cases

DATA_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
DATA_URL_PREFIX = "onnx/backend/test/data/"


@dataclass(frozen=True)
class DataSet:
    feeds: dict[str, Any]  # by graph input name: arrays (or lists for sequence inputs)
    expected: list[Any]  # in graph output order


@dataclass(frozen=True)
class CaseData:
    model: str | onnx.ModelProto  # what a via is handed: a path, or a rewritten model
    data_sets: list[DataSet]
    rtol: float
    atol: float
    random: bool = False  # outputs are random draws: see random_outputs


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    load: Callable[[], CaseData]

    @property
    def id(self) -> str:
        return f"{self.suite}/{self.name}"


@dataclass(frozen=True)
class Suite:
    name: str
    discover: Callable[[int], list[Case]]  # seed -> cases, sorted by name
    parse_error_skips: bool = False  # a model the parser refuses is SKIP, not FAIL


def dummy_input(value_info: onnx.ValueInfoProto, seed: int = 0, random: bool = False) -> np.ndarray:
    """The onnx backend runner's ``generate_dummy_data``, reproduced so that the expected outputs
    shipped for the light models apply (a test checks it still agrees with onnx's own)."""
    shape = tuple(d.dim_value if d.HasField("dim_value") else 1
                  for d in value_info.type.tensor_type.shape.dim)
    if random:
        return np.random.default_rng(seed=seed).random(shape, np.float32)
    n = np.prod(shape)
    return (np.arange(n).reshape(shape) / n).astype(np.float32)


def dummy_feeds(model: onnx.ModelProto, seed: int = 0,
                random: bool = False) -> dict[str, np.ndarray]:
    """A dummy value for each graph input that is not an initializer (IR < 4 lists both)."""
    inits = {t.name for t in model.graph.initializer}
    return {x.name: dummy_input(x, seed, random) for x in model.graph.input if x.name not in inits}


def load_pb(path: str, type_proto: onnx.TypeProto) -> Any:
    """A serialized tensor, sequence or optional, read as the onnx runner reads it."""
    with open(path, "rb") as f:
        data = f.read()
    if type_proto.HasField("sequence_type"):
        return numpy_helper.to_list(_parsed(onnx.SequenceProto, data))
    if type_proto.HasField("optional_type"):
        return numpy_helper.to_optional(_parsed(onnx.OptionalProto, data))
    return numpy_helper.to_array(_parsed(onnx.TensorProto, data))


def _parsed(proto_cls: type, data: bytes) -> Any:
    proto = proto_cls()
    proto.ParseFromString(data)
    return proto


def _test_cases(kind: str) -> list[Any]:
    # onnx's own loader knows the runner's default tolerances and data.json overrides.
    from onnx.backend.test.loader import load_model_tests
    return sorted(load_model_tests(kind=kind), key=lambda t: t.name)


def light_models() -> list[tuple[str, str, float, float]]:
    """(case name, model path, rtol, atol) of each real/ case whose model ships in light/."""
    return [(t.name, os.path.join(DATA_DIR, t.url[len(DATA_URL_PREFIX):]), t.rtol, t.atol)
            for t in _test_cases("real") if t.url and t.url.startswith(DATA_URL_PREFIX + "light/")]


def _discover_light(seed: int) -> list[Case]:
    return [Case("light", name, lambda p=path, r=rtol, a=atol: _load_light(p, r, a))
            for name, path, rtol, atol in light_models()]


def _load_light(path: str, rtol: float, atol: float) -> CaseData:
    model = onnx.load(path)
    prefix = os.path.splitext(path)[0]
    expected = [load_pb(f"{prefix}_output_{i}.pb", out.type)
                for i, out in enumerate(model.graph.output)]
    return CaseData(path, [DataSet(dummy_feeds(model), expected)], rtol, atol)


def _discover_light_random(seed: int) -> list[Case]:
    return [Case("light-random", name, lambda p=path: _load_light_random(p, seed))
            for name, path, _, _ in light_models()]


def _load_light_random(path: str, seed: int) -> CaseData:
    model = light_random.randomise_weights(onnx.load(path), seed)
    feeds = dummy_feeds(model, seed, random=True)
    expected = light_random.ort_session(model).run(None, feeds)
    return CaseData(model, [DataSet(feeds, expected)], light_random.RTOL, light_random.ATOL)


def _discover_dirs(kind: str) -> Callable[[int], list[Case]]:
    def discover(seed: int) -> list[Case]:
        return [Case(kind, t.name, lambda t=t: _load_case_dir(t.model_dir, t.rtol, t.atol))
                for t in _test_cases(kind)]
    return discover


def _load_case_dir(case_dir: str, rtol: float, atol: float) -> CaseData:
    """``model.onnx`` and ``test_data_set_*/{input,output}_<i>.pb``, typed by the graph's i-th
    input/output as the onnx runner types them."""
    path = os.path.join(case_dir, "model.onnx")
    graph = onnx.load(path).graph
    data_sets = []
    for ds in sorted(glob.glob(os.path.join(case_dir, "test_data_set_*"))):
        n_in = len(glob.glob(os.path.join(ds, "input_*.pb")))
        n_out = len(glob.glob(os.path.join(ds, "output_*.pb")))
        feeds = {graph.input[i].name: load_pb(os.path.join(ds, f"input_{i}.pb"),
                                              graph.input[i].type)
                 for i in range(n_in)}
        expected = [load_pb(os.path.join(ds, f"output_{i}.pb"), graph.output[i].type)
                    for i in range(n_out)]
        data_sets.append(DataSet(feeds, expected))
    return CaseData(path, data_sets, rtol, atol)


def _discover_node(seed: int) -> list[Case]:
    return [Case("node", t.name, lambda t=t: _load_node(t)) for t in node_cases.testcases()]


def _load_node(test: Any) -> CaseData:
    model, data_sets, random = node_cases.load(test)
    return CaseData(model, [DataSet(f, e) for f, e in data_sets], test.rtol, test.atol, random)


SUITES: dict[str, Suite] = {s.name: s for s in (
    Suite("light", _discover_light),
    Suite("light-random", _discover_light_random),
    Suite("pytorch-converted", _discover_dirs("pytorch-converted")),
    Suite("pytorch-operator", _discover_dirs("pytorch-operator")),
    Suite("simple", _discover_dirs("simple"), parse_error_skips=True),
    Suite("node", _discover_node),
)}
