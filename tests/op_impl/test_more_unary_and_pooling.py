"""Kernels for the remaining ops the op registry accepts (trig, Celu, Mod, BitShift, LpPool ...),
checked against onnx's reference evaluator, or onnxruntime where the evaluator has no
implementation (GlobalLpPool, MeanVarianceNormalization are function ops there)."""
import numpy as np
import pytest

from kernel_oracle import check_kernel, onnxruntime, reference

rng = np.random.default_rng(0)
X = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
U = rng.uniform(-0.9, 0.9, (3, 4)).astype(np.float32)
A = rng.integers(-9, 9, (3, 4)).astype(np.int32)
B = rng.integers(1, 5, (3, 4)).astype(np.int32)


CASES = [(op, [U], {}) for op in ("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
                                   "Asinh", "Atanh", "HardSwish", "Mish", "Round")] + [
    ("Acosh", [(1 + np.abs(U)).astype(np.float32)], {}),
    ("Celu", [X], {"alpha": 0.7}),
    ("ThresholdedRelu", [X], {"alpha": 0.3}),
    ("Mod", [A, B], {}),
    ("Mod", [X, np.full_like(X, 0.7)], {"fmod": 1}),
    ("BitShift", [np.array([16, 8], np.uint8), np.array([1, 2], np.uint8)], {"direction": "RIGHT"}),
    ("BitShift", [np.array([1, 3], np.uint32), np.array([4, 1], np.uint32)], {"direction": "LEFT"}),
    ("GreaterOrEqual", [X, X[::-1].copy()], {}),
    ("LessOrEqual", [X, X[::-1].copy()], {}),
    ("LpPool", [X], {"kernel_shape": [2, 2], "p": 3}),
    ("LpPool", [X], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ("LpNormalization", [X], {"axis": 1, "p": 2}),
]


@pytest.mark.parametrize("op,inputs,attrs", CASES, ids=[c[0] for c in CASES])
def test_against_reference_evaluator(op, inputs, attrs):
    check_kernel(op, inputs, 18, reference(op, inputs, 18, **attrs), rtol=1e-5, atol=1e-6,
                 **attrs)


# The evaluator's LpNormalization sums x**p without abs(), wrong for p=1 on negative values.
@pytest.mark.parametrize("op,attrs", [("GlobalLpPool", {"p": 2}), ("GlobalLpPool", {"p": 3}),
                                      ("LpNormalization", {"axis": -1, "p": 1}),
                                      ("MeanVarianceNormalization", {}),
                                      ("MeanVarianceNormalization", {"axes": [1]})])
def test_against_onnxruntime(op, attrs):
    check_kernel(op, [X], 13, onnxruntime(op, [X], 13, **attrs), rtol=1e-4, atol=1e-5, **attrs)
