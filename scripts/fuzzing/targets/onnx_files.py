"""ONNX files -> `gewb graph`, `gewb compile`, `gewb graph --run`: a mutated model must parse,
compile and run, or be refused in one line."""
from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from fuzzing.onnx_mutations import BYTE_MUTATIONS, MUTATIONS, mutate, seed_models
from fuzzing.targets import Target
from fuzzing.verdict import Verdict, judge_cli, worst

SEEDS = seed_models()


def mutations() -> st.SearchStrategy:
    return st.lists(st.tuples(st.sampled_from(sorted(MUTATIONS) + list(BYTE_MUTATIONS)),
                              st.integers(0, 1 << 16), st.integers(0, 1 << 16),
                              st.integers(0, 1 << 16)), min_size=1, max_size=3)


def cases() -> st.SearchStrategy:
    return st.tuples(st.integers(0, len(SEEDS) - 1), mutations())


def write_case(case: tuple, workdir: str) -> str:
    seed, muts = case
    path = Path(workdir) / "case.onnx"
    path.write_bytes(mutate(SEEDS[seed], muts))
    return str(path)


def run(case: tuple, workdir: str) -> Verdict:
    path = write_case(case, workdir)
    return worst([judge_cli(["graph", path]),
                  judge_cli(["compile", path, "-o", "case.om", "--no-cache"]),
                  judge_cli(["graph", path, "--run"])])


TARGET = Target("onnx", cases, lambda workdir: workdir, run)
