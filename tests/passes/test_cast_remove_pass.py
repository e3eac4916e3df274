"""CastRemovePass: a Cast to the type it already has goes; so does a round trip A -> B -> A when
B holds every value of A."""
import pytest
from onnx import TensorProto, helper

from ge_core.graph import DataType
from ge_core.passes.cast_remove_pass import CastRemovePass, _holds_all
from pass_testing import check_pass, model, run_pass, types

T = TensorProto


def round_trip(a: int, b: int, extra_output: bool = False):
    outputs = {"y": (a, [4])} | ({"mid": (b, [4])} if extra_output else {})
    return model([helper.make_node("Cast", ["x"], ["mid"], to=b, name="there"),
                  helper.make_node("Cast", ["mid"], ["y"], to=a, name="back")],
                 {"x": (a, [4])}, outputs)


def test_a_cast_to_its_own_type_goes():
    g = model([helper.make_node("Cast", ["x"], ["c"], to=T.FLOAT),
               helper.make_node("Relu", ["c"], ["y"])], {"x": [4]}, {"y": [4]})
    assert check_pass(g, CastRemovePass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}


@pytest.mark.parametrize("a, b", [(T.FLOAT, T.DOUBLE), (T.FLOAT16, T.FLOAT), (T.INT32, T.INT64),
                                  (T.INT32, T.DOUBLE), (T.UINT8, T.INT16), (T.BOOL, T.FLOAT)])
def test_a_round_trip_through_a_wider_type_goes(a, b):
    g = round_trip(a, b)
    check_pass(g, CastRemovePass())
    assert types(g) == {"Data": 1, "NetOutput": 1}


@pytest.mark.parametrize("a, b", [(T.FLOAT, T.FLOAT16), (T.INT64, T.DOUBLE), (T.INT32, T.FLOAT),
                                  (T.FLOAT, T.INT64), (T.INT8, T.UINT8)])
def test_a_round_trip_that_can_lose_values_stays(a, b):
    assert not run_pass(round_trip(a, b), CastRemovePass())


def test_the_first_cast_stays_when_read_elsewhere():
    g = round_trip(T.FLOAT, T.DOUBLE, extra_output=True)
    check_pass(g, CastRemovePass())
    assert types(g) == {"Data": 1, "Cast": 1, "NetOutput": 1}
    assert g.output_node.in_data_nodes() == [g.find_node("x"), g.find_node("there")]


def test_narrow_types_are_judged_and_strings_are_not():
    # bfloat16 is float32's top half (ml_dtypes gives it a numpy dtype); float32 does not fit it.
    assert _holds_all(DataType.DT_BF16, DataType.DT_FLOAT)
    assert not _holds_all(DataType.DT_FLOAT, DataType.DT_BF16)
    assert not _holds_all(DataType.DT_STRING, DataType.DT_FLOAT)
