"""The input values a user gives a model run (``NAME=FILE``: .npy, or an ONNX TensorProto .pb),
as `gewb exec` and the debugger take them.

Before the model is compiled their shapes become its input shapes (GE's
GraphPrepare::CheckAndUpdateInput, ge_core/compiler/graph_prepare.py, beside ge.inputShape's
sizes), so a model whose exporter left the batch symbolic is sunk once every input's shape is
known, and runs hybrid otherwise. Inputs given no value are seeded random, shaped by the compiled
graph (an unknown dimension as 1); a multi-batch graph's gear values follow the inputs' shapes
unless given too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ge_core.executor import random_feeds, with_gear
from ge_core.graph import ComputeGraph
from ge_core.graph.multi_batch_gears import Gears
from workbench.tensor_files import TensorFileError, load_tensor


class InputSpecError(ValueError):
    """A NAME=FILE input spec that cannot be used; the message names it (not GE's
    ModelInputError, which the runtime raises for inputs that do not match the model)."""


@dataclass(frozen=True)
class UserInputs:
    values: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The given values' dims, by input name: what CheckAndUpdateInput takes."""
        return {name: np.shape(v) for name, v in self.values.items()}

    def feeds(self, graph: ComputeGraph, seed: int) -> dict[str, object]:
        """The given values, and seeded random ones for the other inputs of ``graph``."""
        feeds = random_feeds(graph, seed)
        gears = Gears.of(graph)
        if gears is not None:   # the gear value follows the inputs' shapes unless given
            shape_data = graph.input_nodes[gears.shape_data]
            name = shape_data.op_desc.output_names[0] or shape_data.name
            if name not in self.values:
                feeds.pop(name)
        return with_gear(graph, {**feeds, **self.values})


def read_inputs(graph: ComputeGraph, specs: Sequence[str] = ()) -> UserInputs:
    """``specs``: NAME=FILE each, NAME an input of ``graph`` (as parsed, or an OM's)."""
    names = [n.op_desc.output_names[0] or n.name for n in graph.input_nodes]
    values = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or name not in names:
            raise InputSpecError(f"input {spec}: expected NAME=FILE with NAME one of "
                                  f"{', '.join(names)}")
        try:
            values[name] = load_tensor(path)
        except TensorFileError as exc:
            raise InputSpecError(f"input {spec}: {exc}") from exc
    return UserInputs(values)
