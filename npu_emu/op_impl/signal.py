"""Signal kernels: DFT, STFT, the Hann/Hamming/Blackman windows and MelWeightMatrix (ONNX
default domain).

A complex tensor is a real one with a trailing axis of 2 (real, imaginary); a real signal may
come with a trailing axis of 1. numpy's FFT does the transforms, in float64.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from onnx import TensorProto

from npu_emu.op_impl.axis import checked_axis
from npu_emu.op_impl.cast import element_dtype
from npu_emu.op_impl.elementwise import one_output


def _complex(x: np.ndarray) -> np.ndarray:
    """(..., 1 or 2) real/imaginary pairs -> complex (...)."""
    return x[..., 0] if x.shape[-1] == 1 else x[..., 0] + 1j * x[..., 1]


def _pairs(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def _dft(x: np.ndarray, length: int | None, axis: int, inverse: int,
         onesided: int) -> np.ndarray:
    axis = _signal_axis(axis, x.ndim)
    z = _complex(x)
    if inverse and onesided:  # half a spectrum back to a real signal
        n = 2 * (z.shape[axis] - 1) if length is None else length
        return np.fft.irfft(z, n=n, axis=axis)[..., None].astype(x.dtype)
    n = z.shape[axis] if length is None else length
    y = (np.fft.ifft if inverse else np.fft.fft)(z, n=n, axis=axis)
    if onesided:
        y = np.take(y, np.arange(n // 2 + 1), axis=axis)
    return _pairs(y, x.dtype)


def _signal_axis(axis: int, rank: int) -> int:
    """DFT's ``axis`` counted from the front. ONNX counts a negative one from the back of the
    whole shape, as numpy does (-2: the signal's last axis), and none may be the trailing
    real/imaginary pair's: [-rank, -2] or [0, rank - 2]."""
    if axis in (-1, rank - 1):
        raise ValueError(f"axis {axis} is the trailing real/imaginary axis, not a signal axis")
    return checked_axis(axis, rank)


def _length(dft_length: np.ndarray | None) -> int | None:
    return None if dft_length is None or dft_length.size == 0 else int(dft_length.reshape(-1)[0])


@one_output("DFT", since=17)
def dft_17(x: np.ndarray, dft_length: np.ndarray | None = None, *, axis: int = 1,
           inverse: int = 0, onesided: int = 0) -> np.ndarray:
    return _dft(x, _length(dft_length), axis, inverse, onesided)


@one_output("DFT", since=20)
def dft(x: np.ndarray, dft_length: np.ndarray | None = None, axis: np.ndarray | None = None, *,
        inverse: int = 0, onesided: int = 0) -> np.ndarray:
    # The axis became an input (default -2, the signal's last axis).
    return _dft(x, _length(dft_length), -2 if axis is None else int(axis), inverse, onesided)


@one_output("STFT")
def stft(signal: np.ndarray, frame_step: np.ndarray, window: np.ndarray | None = None,
         frame_length: np.ndarray | None = None, *, onesided: int = 1) -> np.ndarray:
    """(batch, frames, bins, 2): the DFT of each windowed frame of the (batch, length, 1 or 2)
    signal, frames frame_step apart."""
    step = int(frame_step)
    length = int(frame_length) if frame_length is not None \
        else window.shape[0] if window is not None else signal.shape[1]
    z = _complex(signal)
    frames = sliding_window_view(z, length, axis=1)[:, ::step]
    if window is not None:
        frames = frames * window
    y = np.fft.fft(frames, n=length, axis=-1)
    if onesided:
        y = y[..., :length // 2 + 1]
    return _pairs(y, signal.dtype)


def _window(terms: tuple[float, ...]) -> object:
    """A generalised cosine window sum_k (-1)^k a_k cos(2 pi k n / N): N is the size
    (periodic) or size - 1 (symmetric)."""

    def make(size: np.ndarray, *, output_datatype: int = TensorProto.FLOAT,
             periodic: int = 1) -> np.ndarray:
        n = int(size)
        span = n if periodic else n - 1
        phase = 2 * np.pi * np.arange(n) / span
        y = sum((-1) ** k * a * np.cos(k * phase) for k, a in enumerate(terms))
        return np.asarray(y).astype(element_dtype(output_datatype, "output_datatype"))

    return make


one_output("HannWindow")(_window((0.5, 0.5)))                     # sin^2(pi n / N)
one_output("HammingWindow")(_window((25 / 46, 21 / 46)))
one_output("BlackmanWindow")(_window((0.42, 0.5, 0.08)))


@one_output("MelWeightMatrix")
def mel_weight_matrix(num_mel_bins: np.ndarray, dft_length: np.ndarray, sample_rate: np.ndarray,
                      lower_edge_hertz: np.ndarray, upper_edge_hertz: np.ndarray, *,
                      output_datatype: int = TensorProto.FLOAT) -> np.ndarray:
    """(dft_length // 2 + 1, num_mel_bins): triangle filters over the spectrogram's bins, their
    corners equally spaced on the mel scale between the two edges."""
    mels, n_fft = int(num_mel_bins), int(dft_length)
    if mels < 1 or n_fft < 1:   # numpy's arange of a negative count indexed nowhere
        raise ValueError(f"num_mel_bins {mels} and dft_length {n_fft} are not both positive")

    def mel(hz: float) -> float:
        return 2595 * np.log10(1 + hz / 700)

    lo, hi = mel(float(lower_edge_hertz)), mel(float(upper_edge_hertz))
    corners_mel = np.arange(mels + 2) * ((hi - lo) / (mels + 2)) + lo
    corners_hz = 700 * (10 ** (corners_mel / 2595) - 1)
    bins = np.floor_divide((n_fft + 1) * corners_hz, float(sample_rate))
    # a corner off the spectrogram's bins (onnxruntime refuses it; the reference indexes past)
    for corner, name, hz in ((bins[0], "lower", lower_edge_hertz),
                             (bins[-1], "upper", upper_edge_hertz)):
        if not 0 <= corner <= n_fft // 2:
            raise ValueError(f"{name}_edge_hertz {float(hz)} puts a filter corner at bin "
                             f"{corner}, outside the {n_fft // 2 + 1} bins of dft_length "
                             f"{n_fft} at sample_rate {int(sample_rate)}")
    corners = bins.astype(np.int64)
    left, centre, right = corners[:-2], corners[1:-1], corners[2:]
    j = np.arange(n_fft // 2 + 1)[:, None]
    rising = np.where((j >= left) & (j <= centre),
                      (j - left) / np.maximum(centre - left, 1), 0.0)
    rising = np.where(centre == left, (j == centre).astype(float), rising)
    falling = (j >= centre) & (j < right)
    y = np.where(falling, (right - j) / np.maximum(right - centre, 1), rising)
    return y.astype(element_dtype(output_datatype, "output_datatype"))
