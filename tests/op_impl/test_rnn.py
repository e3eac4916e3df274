"""RNN, GRU and LSTM against onnxruntime: every direction with ragged sequence_lens, initial
states, clip, activations with alpha/beta, GRU's linear_before_reset and LSTM's peepholes and
input_forget (the node suite has none of these but directions)."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from kernel_oracle import check_kernel, onnxruntime

RNG = np.random.default_rng(0)
SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 6
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
check = partial(check_kernel, rtol=1e-5, atol=1e-6)


def inputs(op: str, dirs: int, lens: bool = True) -> list:
    g = GATES[op]
    def rand(*shape): return RNG.uniform(-0.5, 0.5, shape).astype(np.float32)
    args = [rand(SEQ, BATCH, INPUT), rand(dirs, g * HIDDEN, INPUT), rand(dirs, g * HIDDEN, HIDDEN),
            rand(dirs, 2 * g * HIDDEN),
            np.array([5, 2, 4], np.int32) if lens else None, rand(dirs, BATCH, HIDDEN)]
    if op == "LSTM":
        args += [rand(dirs, BATCH, HIDDEN), rand(dirs, 3 * HIDDEN)]
    return args


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_directions_with_ragged_sequences(op: str, direction: str) -> None:
    dirs = 2 if direction == "bidirectional" else 1
    args = inputs(op, dirs)
    n_out = 3 if op == "LSTM" else 2
    attrs = dict(hidden_size=HIDDEN, direction=direction)
    check(op, args, 14, onnxruntime(op, args, 14, n_out, **attrs), **attrs)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_clip_and_activations_with_alpha(op: str) -> None:
    acts = {"RNN": ["LeakyRelu"], "GRU": ["HardSigmoid", "ScaledTanh"],
            "LSTM": ["HardSigmoid", "Affine", "Elu"]}[op]
    attrs = dict(hidden_size=HIDDEN, clip=0.3, activations=acts,
                 activation_alpha=[0.3, 0.7, 1.5][:len(acts)], activation_beta=[0.4, 0.6])
    args = inputs(op, 1)
    n_out = 3 if op == "LSTM" else 2
    check(op, args, 14, onnxruntime(op, args, 14, n_out, **attrs), **attrs)


def test_gru_linear_before_reset() -> None:
    args = inputs("GRU", 2)
    attrs = dict(hidden_size=HIDDEN, direction="bidirectional", linear_before_reset=1)
    check("GRU", args, 14, onnxruntime("GRU", args, 14, 2, **attrs), **attrs)


def test_lstm_input_forget() -> None:
    args = inputs("LSTM", 1, lens=False)
    attrs = dict(hidden_size=HIDDEN, input_forget=1)
    check("LSTM", args, 14, onnxruntime("LSTM", args, 14, 3, **attrs), **attrs)
