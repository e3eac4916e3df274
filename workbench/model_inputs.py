"""The inputs a user gives a model run, as `gewb exec` and the debugger take them: values
(``NAME=FILE.npy``) and sizes (GE's input_shape text, ``NAME:D0,D1;...``).

Before the model is compiled their shapes become its input shapes (GE's
GraphPrepare::CheckAndUpdateInput, ge_core/compiler/graph_prepare.py), so a model whose
exporter left the batch symbolic is sunk once every input's shape is known, and runs hybrid
otherwise. Inputs given no value are seeded random, shaped by the compiled graph (an unknown
dimension as 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ge_core.compiler.graph_prepare import GraphPrepareError, parse_input_shape
from ge_core.executor import random_feeds
from ge_core.graph import ComputeGraph


class ModelInputError(ValueError):
    """A given input that cannot be used; the message names it."""


@dataclass(frozen=True)
class UserInputs:
    values: dict[str, np.ndarray] = field(default_factory=dict)
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)   # sizes without values

    @property
    def input_shape(self) -> dict[str, tuple[int, ...]]:
        """Every given input's dims, for CheckAndUpdateInput (a value's own shape wins)."""
        return {**self.shapes, **{name: v.shape for name, v in self.values.items()}}

    def feeds(self, graph: ComputeGraph, seed: int) -> dict[str, object]:
        """The given values, and seeded random ones for the other inputs of ``graph``."""
        return {**random_feeds(graph, seed), **self.values}


def read_inputs(graph: ComputeGraph, specs: Sequence[str] = (),
                input_shape: str = "") -> UserInputs:
    """``specs``: NAME=FILE.npy each; ``input_shape``: GE's text. Names must be inputs of
    ``graph`` (as parsed)."""
    names = [n.op_desc.output_names[0] or n.name for n in graph.input_nodes]
    values = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or name not in names:
            raise ModelInputError(f"input {spec}: expected NAME=FILE.npy with NAME one of "
                                  f"{', '.join(names)}")
        try:
            values[name] = np.load(path)
        except (OSError, ValueError) as exc:
            raise ModelInputError(f"input {spec}: {exc}") from exc
    try:
        shapes = parse_input_shape(input_shape)
    except GraphPrepareError as exc:
        raise ModelInputError(f"input-shape {exc}") from exc
    unknown = [n for n in shapes if n not in names]
    if unknown:
        raise ModelInputError(f"input-shape {unknown[0]}: not an input of the model (inputs: "
                              f"{', '.join(names)})")
    return UserInputs(values, shapes)
