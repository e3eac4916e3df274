"""Debugger command lines on live targets: each case opens one target in a fresh DebugSession and
runs a few lines through it, as the REPL, the TUI and scripts do. A bad line must answer with
one Error naming what is wrong (the case counts as a typed error); a raw Python error or
"internal error" counts against us."""
from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from fuzzing.command_lines import command_line
from fuzzing.onnx_mutations import ROOT
from fuzzing.targets import Target
from fuzzing.verdict import OK, TYPED, UNCAUGHT, Verdict, judge_text, release_last_case

SAMPLES = ROOT / "sample_models"
TARGETS = ("tiny_cnn.onnx", "tiny_cnn.om", *(f"devrun/{p.name}" for p in
                                               sorted((SAMPLES / "devrun").glob("*.py"))))


def cases() -> st.SearchStrategy:
    return st.tuples(st.integers(0, len(TARGETS) - 1), st.lists(command_line(), min_size=1,
                                                                 max_size=5))


def setup(workdir: str) -> Path:
    """The sample compiled to an OM once, so the OM target needs no compile per case."""
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.om import save_om
    from ge_core.parser import parse_onnx
    built = atc(parse_onnx(str(SAMPLES / "tiny_cnn.onnx")), CompileOptions(dump=None),
                BuildOptions()).built
    save_om(built.ge_model, Path(workdir) / "tiny_cnn.om")
    return Path(workdir)


def run(case: tuple, workdir: Path) -> Verdict:
    from workbench.commands.render import transcript_entry
    from workbench.commands.session import DebugSession
    from workbench.debugger.outcomes import Error
    which, lines = case
    spec = TARGETS[which]
    target = str(workdir / spec) if spec.endswith(".om") else str(SAMPLES / spec)
    release_last_case()   # the last case's runtimes and the device memory they reserved
    session = DebugSession(base_dir=workdir)
    refused = False
    try:
        for line in [f"target {target}", *lines]:
            try:
                outcomes = session.execute(line)
            except BaseException as exc:   # noqa: BLE001 - DebugSession.execute must not raise
                return Verdict(UNCAUGHT, f"{line!r}: {type(exc).__name__}: {exc}")
            refused = refused or any(isinstance(o, Error) for o in outcomes)
            text = "\n".join(transcript_entry(line, outcomes)) if line.strip() else ""
            verdict = judge_text(Verdict(OK), text)
            if verdict.bad:
                return Verdict(verdict.kind, f"{line!r}: {verdict.detail}")
    finally:
        session.close()
    return Verdict(TYPED) if refused else Verdict(OK)


TARGET = Target("commands", cases, setup, run)
