"""A batch's ``sequence_lens`` (RNN, GRU, LSTM, ReverseSequence): each entry counts steps of
the time axis, so lies in [0, steps]. Past it, the kernels would clip the length to the axis
or read past it."""
from __future__ import annotations

import numpy as np

from npu_emu.op_impl.axis import outside


def check_sequence_lens(lens: np.ndarray, steps: int) -> None:
    if outside(lens, 0, steps + 1) is not None:
        raise ValueError(f"sequence_lens {lens.tolist()} are not within the {steps} steps")
