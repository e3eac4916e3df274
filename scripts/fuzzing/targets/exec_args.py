"""`gewb exec` with the arguments users get wrong: --input files of the wrong shape, dtype or
kind, names that are not inputs, --output / --trace onto paths that cannot be written, every
--mode and the stream options. An input whose shape is not the model's must be refused in every
mode: running on it and exiting 0 is silent corruption."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from hypothesis import strategies as st

from fuzzing.onnx_mutations import mutate
from fuzzing.out_paths import PATHS
from fuzzing.targets import Target
from fuzzing.targets.onnx_files import SEEDS, mutations
from fuzzing.verdict import CORRUPT, OK, Verdict, judge_cli

VARIANTS = ("right", "flat", "reversed", "float64", "int64", "scalar", "empty", "text",
            "missing", "object", "nan", "huge_dim")


def cases() -> st.SearchStrategy:
    inputs = st.lists(st.tuples(st.integers(0, 3), st.sampled_from(VARIANTS)), max_size=2)
    return st.tuples(st.integers(0, len(SEEDS) - 1), st.one_of(st.just([]), mutations()),
                     st.sampled_from((None, "auto", "sink", "hybrid", "v2")),
                     st.sampled_from((None, ("--single-stream",),
                                      ("--stream-max-parallel-num", "4"))), inputs,
                     st.sampled_from(PATHS), st.sampled_from(PATHS))


def _declared(model: onnx.ModelProto) -> list[tuple[str, tuple[int, ...] | None, int]]:
    inits = {t.name for t in model.graph.initializer}
    found = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim)
        found.append((vi.name, None if -1 in dims else dims, tt.elem_type))
    return found


def _array(variant: str, shape: tuple[int, ...], elem_type: int) -> object:
    dtype = onnx.helper.tensor_dtype_to_np_dtype(elem_type) if elem_type else np.float32
    right = np.ones(shape, dtype)
    return {"right": right, "flat": right.reshape(-1), "reversed": right.reshape(shape[::-1]),
            "float64": right.astype(np.float64), "int64": right.astype(np.int64),
            "scalar": np.float32(1), "empty": np.zeros((0,), dtype),
            "nan": np.full(shape, np.nan, np.float32),
            "object": np.array([{"a": 1}], dtype=object),
            "huge_dim": np.broadcast_to(np.float32(0), (1 << 40,))}[variant]


def _write_input(variant: str, shape: tuple[int, ...], elem_type: int, path: Path) -> None:
    if variant == "text":
        path.write_text("not a numpy file")
    elif variant == "huge_dim":   # a header promising 2^40 elements over an empty body
        path.write_bytes(b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, "
                         b"'shape': (1099511627776,), }" + b" " * 42 + b"\n")
    elif variant == "missing":   # an earlier case's file of that name must not answer for it
        path.unlink(missing_ok=True)
    else:
        np.save(path, _array(variant, shape, elem_type), allow_pickle=True)


def run(case: tuple, workdir: str) -> Verdict:
    seed, muts, mode, streams, inputs, output, trace = case
    model_path = Path(workdir) / "case.onnx"
    model_path.write_bytes(mutate(SEEDS[seed], muts))
    declared = _declared(onnx.load(str(SEEDS[seed])))
    argv = ["exec", str(model_path)]
    mismatched: dict[str, str] = {}   # by input name: a later --input NAME= replaces it
    for i, (which, variant) in enumerate(inputs):
        name, shape, elem = declared[which % len(declared)] if declared else ("x", (1,), 1)
        name = name if which < 3 else "no_such_input"
        npy = Path(workdir) / f"in{i}.npy"
        _write_input(variant, shape or (1,), elem, npy)
        argv += ["--input", f"{name}={npy}"]
        mismatched.pop(name, None)
        if shape is not None and name != "no_such_input" and variant in (
                "flat", "reversed", "scalar", "empty") and tuple(
                    np.shape(_array(variant, shape, elem))) != shape:
            mismatched[name] = f"{name}: {variant} for {list(shape)}"
    argv += [] if mode is None else ["--mode", mode]
    argv += [] if streams is None else list(streams)
    argv += [] if output is None else ["--output", output + ".npz"]
    argv += [] if trace is None else ["--trace", trace + ".json"]
    verdict = judge_cli(argv)
    if verdict.kind == OK and mismatched and not muts:
        return Verdict(CORRUPT, f"exec {mode or 'auto'} accepted "
                                f"{', '.join(mismatched.values())}")
    return verdict


TARGET = Target("exec", cases, lambda workdir: workdir, run)
