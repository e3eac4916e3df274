"""ONNX files -> `gewb graph [--dot]`, `gewb compile [-o] [--dump]`, `gewb graph --run`: a
mutated model must parse, compile and run, or be refused in one line, whatever place its
outputs were pointed at."""
from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from fuzzing.onnx_mutations import BYTE_MUTATIONS, MUTATIONS, mutate, node_seeds, seed_models
from fuzzing.out_paths import PATHS
from fuzzing.targets import Target
from fuzzing.verdict import Verdict, judge_cli, worst

SEEDS = seed_models()


def mutations() -> st.SearchStrategy:
    return st.lists(st.tuples(st.sampled_from(sorted(MUTATIONS) + list(BYTE_MUTATIONS)),
                              st.integers(0, 1 << 16), st.integers(0, 1 << 16),
                              st.integers(0, 1 << 16)), min_size=1, max_size=3)


def cases() -> st.SearchStrategy:
    # the files first, then the node suite's models (made only when the onnx target runs)
    return st.tuples(st.integers(0, len(SEEDS) + len(node_seeds()) - 1), mutations(),
                     st.sampled_from(PATHS))


def run(case: tuple, workdir: str) -> Verdict:
    seed, muts, out = case
    path = Path(workdir) / "case.onnx"
    source = SEEDS[seed] if seed < len(SEEDS) else node_seeds()[seed - len(SEEDS)]
    path.write_bytes(mutate(source, muts))
    dot = [] if out is None else ["--dot", out + ".dot"]
    om = ["-o", "case.om"] if out is None else ["-o", out + ".om", "--dump", out + ".dump"]
    return worst([judge_cli(["graph", str(path), *dot]),
                  judge_cli(["compile", str(path), *om, "--no-cache"]),
                  judge_cli(["graph", str(path), "--run"])])


TARGET = Target("onnx", cases, lambda workdir: workdir, run)
