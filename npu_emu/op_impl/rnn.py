"""Recurrent kernels: RNN, GRU and LSTM (the forms of opset 7 and 14; 14 added ``layout``).

Each direction runs a step per time index over the whole batch at once; the step (a ``_Cell``) is
all that differs between the three ops. A batch entry whose ``sequence_lens`` ends early keeps its
last state and writes zeros to Y past its end; a reverse direction starts at each entry's own
last step. Gate weights are stacked as ONNX orders them (RNN: i; GRU: z, r, h; LSTM: i, o, f, c).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from npu_emu.op_impl.registry import kernel
from npu_emu.op_impl.sequence_lens import check_sequence_lens

Activation = Callable[[np.ndarray], np.ndarray]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


# name -> (function of x, alpha, beta; default alpha, default beta); the defaults are those of the
# ONNX op of the same name.
_ACTIVATIONS: dict[str, tuple[Callable[..., np.ndarray], float | None, float | None]] = {
    "Tanh": (lambda x, a, b: np.tanh(x), None, None),
    "Sigmoid": (lambda x, a, b: _sigmoid(x), None, None),
    "Relu": (lambda x, a, b: np.maximum(x, 0), None, None),
    "Affine": (lambda x, a, b: a * x + b, 1.0, 0.0),
    "LeakyRelu": (lambda x, a, b: np.where(x >= 0, x, a * x), 0.01, None),
    "ThresholdedRelu": (lambda x, a, b: np.where(x > a, x, 0), 1.0, None),
    "ScaledTanh": (lambda x, a, b: a * np.tanh(b * x), 1.0, 1.0),
    "HardSigmoid": (lambda x, a, b: np.clip(a * x + b, 0, 1), 0.2, 0.5),
    "Elu": (lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)), 1.0, None),
    "Softsign": (lambda x, a, b: x / (1 + np.abs(x)), None, None),
    "Softplus": (lambda x, a, b: np.log1p(np.exp(x)), None, None),
}


def _activations(names: Sequence[str] | None, defaults: Sequence[str], n_dirs: int,
                 alphas: Sequence[float] | None, betas: Sequence[float] | None
                 ) -> list[list[Activation]]:
    """Per direction, its activation functions. ``activation_alpha``/``_beta`` are consumed in
    order by the functions that take one."""
    names = list(names) if names else list(defaults) * n_dirs
    alphas, betas = list(alphas or []), list(betas or [])
    fns = []
    for name in names:
        key = next((k for k in _ACTIVATIONS if k.lower() == name.lower()), None)
        if key is None:
            raise ValueError(f"activation {name!r} is not one of {', '.join(_ACTIVATIONS)}")
        fn, alpha, beta = _ACTIVATIONS[key]
        a = alphas.pop(0) if alpha is not None and alphas else alpha
        b = betas.pop(0) if beta is not None and betas else beta
        fns.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    per_dir = len(defaults)
    return [fns[d * per_dir:(d + 1) * per_dir] for d in range(n_dirs)]


class _Cell:
    """One direction's weights and activations; ``step`` maps (x_t, h, c) to the new (h, c)."""

    def __init__(self, w: np.ndarray, r: np.ndarray, b: np.ndarray | None, n_gates: int,
                 fns: list[Activation], clip: float | None) -> None:
        hidden = r.shape[-1]
        self.w_t, self.r_t, self.fns, self.clip = w.T, r.T, fns, clip
        self.wb, self.rb = (np.zeros(n_gates * hidden, w.dtype),) * 2 if b is None else \
            (b[:n_gates * hidden], b[n_gates * hidden:])

    def gates(self, pre: np.ndarray) -> np.ndarray:
        return pre if self.clip is None else np.clip(pre, -self.clip, self.clip)


class _RnnCell(_Cell):
    def step(self, x, h, c):
        f = self.fns[0]
        return f(self.gates(x @ self.w_t + h @ self.r_t + self.wb + self.rb)), c


class _GruCell(_Cell):
    linear_before_reset = False

    def step(self, x, h, c):
        f, g = self.fns
        n = h.shape[-1]
        xw = x @ self.w_t + self.wb
        hr = h @ self.r_t[:, :2 * n] + self.rb[:2 * n]
        z = f(self.gates(xw[:, :n] + hr[:, :n]))
        r = f(self.gates(xw[:, n:2 * n] + hr[:, n:]))
        r_h, rb_h = self.r_t[:, 2 * n:], self.rb[2 * n:]
        if self.linear_before_reset:
            candidate = xw[:, 2 * n:] + r * (h @ r_h + rb_h)
        else:
            candidate = xw[:, 2 * n:] + (r * h) @ r_h + rb_h
        return (1 - z) * g(self.gates(candidate)) + z * h, c


class _LstmCell(_Cell):
    peepholes: np.ndarray | None = None
    input_forget = False

    def step(self, x, h, c):
        f, g, act_h = self.fns
        n = h.shape[-1]
        pre = x @ self.w_t + h @ self.r_t + self.wb + self.rb
        p_i, p_o, p_f = (np.zeros(n, x.dtype),) * 3 if self.peepholes is None else \
            np.split(self.peepholes, 3)
        i = f(self.gates(pre[:, :n] + p_i * c))
        forget = 1 - i if self.input_forget else f(self.gates(pre[:, 2 * n:3 * n] + p_f * c))
        c = forget * c + i * g(self.gates(pre[:, 3 * n:]))
        o = f(self.gates(pre[:, n:2 * n] + p_o * c))
        return o * act_h(c), c


def _run_direction(cell: _Cell, x: np.ndarray, lens: np.ndarray, h: np.ndarray,
                   c: np.ndarray, reverse: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x[seq, batch, input] -> (y[seq, batch, hidden], last h, last c)."""
    seq, batch = x.shape[:2]
    y = np.zeros((seq, batch, h.shape[-1]), x.dtype)
    rows = np.arange(batch)
    for t in range(seq):
        live = t < lens
        at = np.clip(lens - 1 - t if reverse else np.full(batch, t), 0, seq - 1)
        h_new, c_new = cell.step(x[at, rows], h, c)
        h = np.where(live[:, None], h_new, h)
        c = np.where(live[:, None], c_new, c)
        y[at[live], rows[live]] = h_new[live]
    return y, h, c


_DIRECTIONS = {"forward": (False,), "reverse": (True,), "bidirectional": (False, True)}


def _check_shapes(x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray | None,
                  sequence_lens: np.ndarray | None, initial_h: np.ndarray | None,
                  initial_c: np.ndarray | None, n_gates: int, dirs: int, layout: int,
                  hidden_size: int | None) -> None:
    """The inputs' shapes agree with X's and the hidden size (the attribute, else R's) as ONNX
    says (numpy's words otherwise, or a state broadcast over a batch it was not given for)."""
    if x.ndim != 3 or r.ndim != 3:
        raise ValueError(f"X {list(x.shape)} and R {list(r.shape)} are not 3-d")
    if hidden_size is not None and hidden_size < 1:
        raise ValueError(f"hidden_size {hidden_size} is not positive")
    hidden = r.shape[-1] if hidden_size is None else int(hidden_size)
    rows = n_gates * hidden
    seq, batch = x.shape[:2][::-1] if layout else x.shape[:2]
    state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    wanted = {"W": (w, (dirs, rows, x.shape[2])), "R": (r, (dirs, rows, hidden)),
              "B": (b, (dirs, 2 * rows)), "sequence_lens": (sequence_lens, (batch,)),
              "initial_h": (initial_h, state), "initial_c": (initial_c, state)}
    for name, (a, shape) in wanted.items():
        if a is not None and a.shape != shape:
            raise ValueError(f"{name} of shape {list(a.shape)} is not {list(shape)} (X "
                             f"{list(x.shape)}, {dirs} direction(s), hidden size {hidden})")
    if sequence_lens is not None:
        check_sequence_lens(sequence_lens, seq)


def _recurrent(cell_type: type[_Cell], n_gates: int, default_acts: Sequence[str],
               x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray | None,
               sequence_lens: np.ndarray | None, initial_h: np.ndarray | None,
               initial_c: np.ndarray | None, attrs: dict, configure: Callable[[_Cell, int], None]
               = lambda cell, d: None) -> tuple[np.ndarray, ...]:
    layout, direction = int(attrs.get("layout", 0)), attrs.get("direction", "forward")
    if direction not in _DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}; known: {', '.join(_DIRECTIONS)}")
    reverses = _DIRECTIONS[direction]
    _check_shapes(x, w, r, b, sequence_lens, initial_h, initial_c, n_gates, len(reverses),
                  layout, attrs.get("hidden_size"))
    if layout:  # batch-major: [batch, seq, ...] in, [batch, seq, dirs, hidden] out
        x = x.swapaxes(0, 1)
        initial_h = None if initial_h is None else initial_h.swapaxes(0, 1)
        initial_c = None if initial_c is None else initial_c.swapaxes(0, 1)
    hidden = r.shape[-1]
    seq, batch = x.shape[:2]
    lens = np.full(batch, seq) if sequence_lens is None else sequence_lens.astype(np.int64)
    fns = _activations(attrs.get("activations"), default_acts, len(reverses),
                       attrs.get("activation_alpha"), attrs.get("activation_beta"))
    zeros = np.zeros((len(reverses), batch, hidden), x.dtype)
    h0 = zeros if initial_h is None else initial_h
    c0 = zeros if initial_c is None else initial_c
    ys, hs, cs = [], [], []
    for d, reverse in enumerate(reverses):
        cell = cell_type(w[d], r[d], None if b is None else b[d], n_gates, fns[d],
                         attrs.get("clip"))
        configure(cell, d)
        y, h, c = _run_direction(cell, x, lens, h0[d], c0[d], reverse)
        ys.append(y), hs.append(h), cs.append(c)
    y, y_h, y_c = np.stack(ys, axis=1), np.stack(hs), np.stack(cs)
    if layout:
        y, y_h, y_c = y.transpose(2, 0, 1, 3), y_h.swapaxes(0, 1), y_c.swapaxes(0, 1)
    return y, y_h, y_c


@kernel("RNN")
def rnn(x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray | None = None,
        sequence_lens: np.ndarray | None = None, initial_h: np.ndarray | None = None,
        **attrs) -> tuple[np.ndarray, np.ndarray]:
    return _recurrent(_RnnCell, 1, ("Tanh",), x, w, r, b, sequence_lens, initial_h, None,
                      attrs)[:2]


@kernel("GRU")
def gru(x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray | None = None,
        sequence_lens: np.ndarray | None = None, initial_h: np.ndarray | None = None,
        **attrs) -> tuple[np.ndarray, np.ndarray]:
    def configure(cell: _Cell, d: int) -> None:
        cell.linear_before_reset = bool(attrs.get("linear_before_reset", 0))

    return _recurrent(_GruCell, 3, ("Sigmoid", "Tanh"), x, w, r, b, sequence_lens, initial_h,
                      None, attrs, configure)[:2]


@kernel("LSTM")
def lstm(x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray | None = None,
         sequence_lens: np.ndarray | None = None, initial_h: np.ndarray | None = None,
         initial_c: np.ndarray | None = None, p: np.ndarray | None = None,
         **attrs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if p is not None and p.shape != (r.shape[0], 3 * r.shape[-1]):
        raise ValueError(f"P of shape {list(p.shape)} is not [{r.shape[0]}, "
                         f"{3 * r.shape[-1]}] (3 peepholes per hidden unit and direction)")

    def configure(cell: _Cell, d: int) -> None:
        cell.peepholes = None if p is None else p[d]
        cell.input_forget = bool(attrs.get("input_forget", 0))

    return _recurrent(_LstmCell, 4, ("Sigmoid", "Tanh", "Tanh"), x, w, r, b, sequence_lens,
                      initial_h, initial_c, attrs, configure)
