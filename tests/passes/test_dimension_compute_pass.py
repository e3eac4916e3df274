"""DimensionComputePass: Shape and Size of a static input become Consts, whatever computes the
input's data; a dynamic dim keeps them."""
import numpy as np
from onnx import TensorProto, helper

from ge_core.passes.dimension_compute_pass import DimensionComputePass
from ge_core.passes.pass_utils import const_value
from pass_testing import check_pass, model, run_pass, types

I64 = TensorProto.INT64


def test_shape_and_size_of_a_static_input_fold_to_consts():
    g = model([helper.make_node("Relu", ["x"], ["r"]),
               helper.make_node("Shape", ["r"], ["s"], name="shape"),
               helper.make_node("Size", ["r"], ["n"], name="size")],
              {"x": [2, 5]}, {"s": (I64, [2]), "n": (I64, []), "r": [2, 5]})
    assert check_pass(g, DimensionComputePass())
    assert types(g) == {"Data": 1, "Relu": 1, "Const": 2, "NetOutput": 1}
    assert const_value(g.find_node("s")).tolist() == [2, 5]
    assert const_value(g.find_node("n")).tolist() == 10


def test_shape_of_a_dynamic_dim_stays():
    g = model([helper.make_node("Shape", ["x"], ["s"])], {"x": ["N", 3]}, {"s": (I64, [2])})
    assert not run_pass(g, DimensionComputePass())


def test_an_op_reading_data_is_not_its_to_fold():
    g = model([helper.make_node("Neg", ["c"], ["y"], name="neg")], {}, {"y": [2]},
              {"c": np.array([1, 2], np.float32)})
    assert not run_pass(g, DimensionComputePass())
    assert g.find_node("neg")


def test_a_shape_whose_count_no_int64_holds_stays():
    """A declared dim of 2^62 times a few more: no stand-in tensor has that shape (numpy's
    "iterator is too large" was the compile's internal error); the pass leaves the Shape, and
    what reads the tensor refuses it."""
    g = model([helper.make_node("Shape", ["x"], ["s"])], {"x": [2, 1 << 62, 4]},
              {"s": (I64, [3])})
    assert not run_pass(g, DimensionComputePass())
