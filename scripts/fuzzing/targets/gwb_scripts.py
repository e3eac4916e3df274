"""Garbage `.gwb` scripts -> `gewb run` (with and without --keep-going and --expect): mistyped
commands, say/pause, targets that exist and that do not, bytes that are not UTF-8, NULs, CR
line ends, very long lines."""
from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from fuzzing.command_lines import command_line
from fuzzing.onnx_mutations import ROOT
from fuzzing.targets import Target
from fuzzing.verdict import Verdict, judge_cli

SAMPLES = ROOT / "sample_models"
SPECIAL = (b"say hello", b"pause", b"\xff\xfe garbage", b"\x00", b"say " + b"x" * 100_000,
           b"target " + str(SAMPLES / "tiny_cnn.onnx").encode(),
           b"target " + str(SAMPLES / "devrun" / "deadlock.py").encode(),
           b"target no_such_file.onnx", b"target ../../../etc", b"# comment", b"\r")


def cases() -> st.SearchStrategy:
    line = st.one_of(command_line().map(lambda s: s.encode("utf-8", "surrogatepass")),
                     st.sampled_from(SPECIAL), st.binary(max_size=40))
    return st.tuples(st.lists(line, max_size=8), st.sampled_from((b"\n", b"\r\n")),
                     st.booleans(), st.sampled_from((None, b"", b"\xff\xfe", b"> step\n")))


def run(case: tuple, workdir: str) -> Verdict:
    lines, newline, keep_going, expected = case
    script = Path(workdir) / "case.gwb"
    script.write_bytes(newline.join(lines))
    argv = ["run", str(script)] + (["--keep-going"] if keep_going else [])
    if expected is not None:
        (Path(workdir) / "expected.txt").write_bytes(expected)
        argv += ["--expect", str(Path(workdir) / "expected.txt")]
    return judge_cli(argv)


TARGET = Target("gwb", cases, lambda workdir: workdir, run)
