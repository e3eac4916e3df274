"""The node suite: the one-op test cases the installed onnx package generates
(``onnx.backend.test.case.node.collect_testcases()``), each a small model with its inputs and the
outputs onnx's own reference code computed for them, and the suite's rtol/atol.

onnx makes every case (model and expected outputs) while it imports its case modules, which costs
~13 s once per process, most of it in the reference 3-D pools; discovery does that once and keeps
the cases, and a case's feeds are put together only when it runs. Cases whose outputs are random
draws (Bernoulli, training-mode Dropout ...) are judged by ``random_outputs`` instead.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from workbench.conformance import random_outputs


@functools.cache
def testcases() -> tuple[Any, ...]:
    """onnx's node TestCases, sorted by name (made on the first call)."""
    from onnx.backend.test.case.node import collect_testcases

    # The generators overflow and divide by zero on purpose (Cast's saturation cases, the
    # -inf of an empty ReduceLogSum); what they compute is the expected output, not a fault.
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    return tuple(sorted(cases, key=lambda t: t.name))


def _value(item: Any) -> Any:
    # A case holds numpy arrays, lists (sequences), None (an empty optional) or TensorProtos
    # for types numpy cannot hold natively; the onnx runner turns those into arrays the same way.
    return numpy_helper.to_array(item) if isinstance(item, onnx.TensorProto) else item


def load(test: Any) -> tuple[onnx.ModelProto, list[tuple[dict[str, Any], list[Any]]], bool]:
    """(model, [(feeds by graph input name, expected outputs)], whether outputs are random)."""
    names = [x.name for x in test.model.graph.input]
    data_sets = [({n: _value(v) for n, v in zip(names, inputs)}, [_value(v) for v in outputs])
                 for inputs, outputs in test.data_sets]
    return test.model, data_sets, random_outputs.is_random(test.model, data_sets[0][0])
