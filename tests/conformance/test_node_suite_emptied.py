"""The node suite's one-input cases with their input emptied along each axis in turn, run on the
host executor against onnx's reference evaluator: wherever the reference computes a result, ours
is the same (an empty output, a nan mean, the bias of a conv of nothing). One input only, so
that the emptying leaves no other input disagreeing with it (a Scatter's indices with updates
of the old size, which the reference may run by accident). Kernels of empty tensors took
numpy's refusals of an empty axis to the user as the node's error (tests/op_impl/
test_empty_inputs.py has one case of each); this holds every op the suite has, and every op
added to it, to the reference."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import onnx
import pytest
from onnx.reference import ReferenceEvaluator

from ge_core.executor import HostExecutor
from ge_core.parser import parse_onnx
from workbench.conformance import node_cases


def _emptied_cases() -> list[tuple[str, onnx.ModelProto, str, np.ndarray]]:
    """(case name and axis, the model with its shapes cleared, the input's name, its value
    emptied along that axis), for each one-input case whose input is a float tensor."""
    out = []
    for test in node_cases.testcases():
        model, data_sets, random = node_cases.load(test)
        feeds = data_sets[0][0]
        if random or len(feeds) != 1:
            continue
        (name, x), = feeds.items()
        if not (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
            continue
        model = copy.deepcopy(model)   # the declared shapes would contradict the new input
        for value in [*model.graph.input, *model.graph.output]:
            if value.type.HasField("tensor_type"):
                value.type.tensor_type.ClearField("shape")
        del model.graph.value_info[:]
        for axis in range(x.ndim):
            if x.shape[axis]:
                out.append((f"{test.name} axis {axis}", model, name, np.take(x, [], axis=axis)))
    return out


@pytest.mark.slow
def test_every_one_input_case_emptied_along_any_axis_gives_the_references_result():
    compared, wrong = 0, []
    for label, model, name, x in _emptied_cases():
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")   # numpy's words on nan results
            try:
                expected = ReferenceEvaluator(model).run(None, {name: x})
            except Exception:   # noqa: BLE001 -- nothing to hold ours to
                continue
            compared += 1
            try:
                got = list(HostExecutor(parse_onnx(model)).run({name: x}).values())
            except Exception as exc:   # noqa: BLE001 -- the failure is the finding
                wrong.append(f"{label}: {exc}")
                continue
        for i, (e, g) in enumerate(zip(expected, got)):
            e, g = np.asarray(e), np.asarray(g)
            if e.shape != g.shape or not np.allclose(g.astype(np.complex128),
                                                     e.astype(np.complex128), rtol=1e-3,
                                                     atol=1e-4, equal_nan=True):
                wrong.append(f"{label}: output {i} is {g.shape}, the reference's {e.shape}")
                break
    assert compared > 800 and not wrong, "\n".join(wrong)
