"""ATC's gear options, parsed and checked as GE's multi_batch_options.cc and option_utils.cc do:
each refusal is one line naming the option."""
import pytest

from ge_core.passes.multi_batch import DynamicInputType, MultiBatchOptionError, MultiBatchOptions


@pytest.mark.parametrize("options, gears, kind", [
    (dict(dynamic_batch_size="1,2,4"), [(1,), (2,), (4,)], DynamicInputType.DYNAMIC_BATCH),
    (dict(dynamic_batch_size="8,1,"), [(8,), (1,)], DynamicInputType.DYNAMIC_BATCH),
    (dict(dynamic_image_size="224,224;448,320"), [(224, 224), (448, 320)],
     DynamicInputType.DYNAMIC_IMAGE),
    (dict(dynamic_dims="1,20;2,40;4,80"), [(1, 20), (2, 40), (4, 80)],
     DynamicInputType.DYNAMIC_DIMS),
])
def test_gears_are_read_in_order(options, gears, kind):
    parsed = MultiBatchOptions(**options)
    assert parsed.gears() == gears
    assert parsed.dynamic_type is kind and parsed.enabled


def test_no_gear_option_is_fixed():
    assert MultiBatchOptions(input_shape="x:1,3").dynamic_type is DynamicInputType.FIXED
    assert not MultiBatchOptions().enabled


@pytest.mark.parametrize("options, message", [
    (dict(dynamic_batch_size="4"), "--dynamic_batch_size gives 1 gear(s); at least 2"),
    (dict(dynamic_batch_size="1,2,1"), "--dynamic_batch_size: a gear is given twice"),
    (dict(dynamic_batch_size="1,-2"), "'-2' is not a non-negative integer"),
    (dict(dynamic_batch_size="1,²"), "'²' is not a non-negative integer"),   # isdigit, no int
    (dict(dynamic_dims="1,2;3"), "--dynamic_dims: every gear must have as many dims"),
    (dict(dynamic_image_size="224;448"), "each gear is 2 numbers, H,W"),
    (dict(dynamic_batch_size="1,2", dynamic_dims="1;2"), "mutually exclusive"),
])
def test_bad_gears_are_refused_naming_the_option(options, message):
    with pytest.raises(MultiBatchOptionError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        MultiBatchOptions(**options).gears()


def test_input_shape_names_each_input_with_its_dims():
    parsed = MultiBatchOptions(input_shape="data:-1,3,224,224; mask:1,-1")
    assert parsed.user_input_dims() == [("data", (-1, 3, 224, 224)), ("mask", (1, -1))]
    with pytest.raises(MultiBatchOptionError, match="expected NAME:d,d"):
        MultiBatchOptions(input_shape="1,2,3").user_input_dims()


@pytest.mark.parametrize("options, dims, layout, ok", [
    (dict(dynamic_batch_size="1,2"), (-1, 3, 8, 8), "NCHW", True),
    (dict(dynamic_batch_size="1,2"), (1, -1, 8, 8), "NCHW", False),   # only N
    (dict(dynamic_image_size="4,4;8,8"), (1, 3, -1, -1), "NCHW", True),
    (dict(dynamic_image_size="4,4;8,8"), (1, -1, -1, 3), "NHWC", True),
    (dict(dynamic_image_size="4,4;8,8"), (-1, 3, -1, -1), "NCHW", False),   # only H and W
])
def test_only_the_dims_the_gear_kind_names_may_be_dynamic(options, dims, layout, ok):
    check = lambda: MultiBatchOptions(**options).check_input("x", dims, layout)  # noqa: E731
    if ok:
        check()
    else:
        with pytest.raises(MultiBatchOptionError, match="input x"):
            check()
