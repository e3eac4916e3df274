"""The gear options of ATC and a session: which input dims are dynamic and which values they may
take (GE's compiler/graph/preprocess/multi_batch_options.cc and the checks of
compiler/api/aclgrph/option_utils.cc); their
GE option keys are in ge_core/ge_options.py.

    --input_shape         ge.inputShape        "x:-1,3,224,224;y:1,-1"   -1 marks a dynamic dim
    --dynamic_batch_size  ge.dynamicBatchSize  "1,2,4"                   the batch dim N only
    --dynamic_image_size  ge.dynamicImageSize  "224,224;448,448"         H and W of NCHW / NHWC
    --dynamic_dims        ge.dynamicDims       "1,224;2,448"             any dims, all named in
                                                                          --input_shape

Each gear gives a value to every -1, in input order (GE's ParserDataToDynamicInfo splits a gear
across the inputs). The three gear options are mutually exclusive; there are at least two gears,
all of one length, none repeated.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

Dims = tuple[int, ...]

DYNAMIC_DIM = -1
MIN_SHAPES_COUNT = 2           # GE's kMinShapesCount
IMAGE_SIZE_DIMS = 2            # GE's kDynamicImgSizeDynamciDimsNum: H and W
NCHW_H, NCHW_W, NHWC_H, NHWC_W = 2, 3, 1, 2


class DynamicInputType(IntEnum):
    """GE's DynamicInputType (framework_types_internal.h), stamped on the Case."""
    FIXED = 0
    DYNAMIC_BATCH = 1
    DYNAMIC_IMAGE = 2
    DYNAMIC_DIMS = 3


class MultiBatchOptionError(ValueError):
    """A gear option GE would refuse; the message names the option."""


@dataclass(frozen=True)
class MultiBatchOptions:
    input_shape: str = ""
    dynamic_batch_size: str = ""
    dynamic_image_size: str = ""
    dynamic_dims: str = ""

    @property
    def enabled(self) -> bool:
        return self.dynamic_type is not DynamicInputType.FIXED

    @property
    def dynamic_type(self) -> DynamicInputType:
        """GE's StampDynamicType; CheckDynamicInputParamValid: the three are exclusive."""
        kinds = ((self.dynamic_batch_size, DynamicInputType.DYNAMIC_BATCH),
                 (self.dynamic_image_size, DynamicInputType.DYNAMIC_IMAGE),
                 (self.dynamic_dims, DynamicInputType.DYNAMIC_DIMS))
        given = [(flag, t) for flag, t in kinds if flag]
        if len(given) > 1:
            raise MultiBatchOptionError("these parameters are mutually exclusive: "
                                        "dynamic_batch_size, dynamic_image_size, dynamic_dims")
        return given[0][1] if given else DynamicInputType.FIXED

    def gears(self) -> list[Dims]:
        """InitDynamicParams then CheckDynamicParams: one tuple of dim values per gear."""
        kind = self.dynamic_type
        if kind is DynamicInputType.DYNAMIC_BATCH:
            gears = [(_number("dynamic_batch_size", v),)
                     for v in self.dynamic_batch_size.split(",") if v.strip()]
        else:
            option, text = (("dynamic_image_size", self.dynamic_image_size)
                            if kind is DynamicInputType.DYNAMIC_IMAGE
                            else ("dynamic_dims", self.dynamic_dims))
            gears = [tuple(_number(option, v) for v in group.split(",") if v.strip())
                     for group in text.split(";") if group.strip()]
            if kind is DynamicInputType.DYNAMIC_IMAGE and any(len(g) != IMAGE_SIZE_DIMS
                                                              for g in gears):
                raise MultiBatchOptionError(f"--dynamic_image_size {text}: each gear is "
                                            f"{IMAGE_SIZE_DIMS} numbers, H,W")
        if len(gears) < MIN_SHAPES_COUNT:
            raise MultiBatchOptionError(f"--{self.option_name} gives {len(gears)} gear(s); "
                                        f"at least {MIN_SHAPES_COUNT} are needed")
        if len({len(g) for g in gears}) != 1:
            raise MultiBatchOptionError(f"--{self.option_name}: every gear must have as many "
                                        f"dims as the first ({len(gears[0])})")
        if len(set(gears)) != len(gears):
            raise MultiBatchOptionError(f"--{self.option_name}: a gear is given twice")
        return gears

    @property
    def option_name(self) -> str:
        return {DynamicInputType.DYNAMIC_BATCH: "dynamic_batch_size",
                DynamicInputType.DYNAMIC_IMAGE: "dynamic_image_size",
                DynamicInputType.DYNAMIC_DIMS: "dynamic_dims",
                DynamicInputType.FIXED: "input_shape"}[self.dynamic_type]

    def user_input_dims(self) -> list[tuple[str, Dims]]:
        """--input_shape as (input name, dims) in the order given (GE's ParseInputShapes)."""
        out: list[tuple[str, Dims]] = []
        for item in filter(None, (s.strip() for s in self.input_shape.split(";"))):
            name, sep, dims = item.rpartition(":")
            if not sep or not name:
                raise MultiBatchOptionError(f"--input_shape {item!r}: expected NAME:d,d,...")
            try:
                out.append((name, tuple(int(d) for d in dims.split(",") if d.strip())))
            except ValueError:
                raise MultiBatchOptionError(f"--input_shape {item!r}: dims must be integers "
                                            f"(-1 for a dynamic one)") from None
            if any(d < DYNAMIC_DIM for d in out[-1][1]):
                raise MultiBatchOptionError(f"--input_shape {item!r}: a dim is -1 or >= 0")
        return out

    def check_input(self, name: str, dims: Dims, layout: str) -> None:
        """The dynamic dims of one input fit the gear kind (CheckDynamicBatchShape,
        CheckDynamicImageSizeShape)."""
        unknown = [i for i, d in enumerate(dims) if d == DYNAMIC_DIM]
        kind = self.dynamic_type
        if kind is DynamicInputType.DYNAMIC_BATCH and unknown != [0]:
            raise MultiBatchOptionError(f"input {name} {list(dims)}: only batch N can be -1 "
                                        f"when --dynamic_batch_size is set")
        if kind is DynamicInputType.DYNAMIC_IMAGE:
            hw = {"NCHW": [NCHW_H, NCHW_W], "NHWC": [NHWC_H, NHWC_W]}.get(layout)
            if hw is None or len(dims) != 4 or unknown != hw:
                raise MultiBatchOptionError(f"input {name} {list(dims)} ({layout}): only "
                                            f"height and width can be -1 when "
                                            f"--dynamic_image_size is set")


def _number(option: str, text: str) -> int:
    text = text.strip()
    if not text.isdecimal():
        raise MultiBatchOptionError(f"--{option}: {text!r} is not a non-negative integer")
    return int(text)
