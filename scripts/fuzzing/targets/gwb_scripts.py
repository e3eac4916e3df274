"""Garbage `.gwb` scripts -> `gewb run` (with and without --keep-going, --expect and
--allow-programs): mistyped commands, say/pause, targets that exist and that do not, bytes that
are not UTF-8, NULs, CR line ends, very long lines, and host programs opened with and without
consent.

A host program runs only with the user's consent (workbench/script/consent.py): `gewb run
--allow-programs` and a `# programs:` header naming it, in the script whose `target` line opens
it (a sourced script's own header counts for its lines, and only for them). The programs a case
may open are canaries that log their name when they run: one that ran without that consent is
silent corruption, whatever the run printed."""
from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import strategies as st

from fuzzing.command_lines import command_line
from fuzzing.onnx_mutations import ROOT
from fuzzing.targets import Target
from fuzzing.verdict import CORRUPT, Verdict, judge_cli

SAMPLES = ROOT / "sample_models"
CANARY = "canary.py"               # the case's own script opens it
UNNAMED = "unnamed_canary.py"      # inner.gwb opens it without naming it in a header
NAMED = "named_canary.py"          # inner_named.gwb names it and opens it
RAN = "ran.log"
CANARY_PROGRAM = f"""\
from pathlib import Path

import npu_emu.acl as acl

with Path(__file__).with_name("{RAN}").open("a") as log:
    log.write(Path(__file__).name + "\\n")
acl.init()
acl.rt.set_device(0)
acl.finalize()
"""
INNER = {"inner.gwb": f"target {UNNAMED}\ncontinue\n",
         "inner_named.gwb": f"#   programs: {NAMED}\ntarget {NAMED}\ncontinue\n"}
# Lines that open programs with consent or without: a case opens with a few of these groups (a
# script stops at its first failing line, so random lines rarely reach them otherwise).
CONSENT = ((f"target {CANARY}".encode(), b"continue"), (f"target ./{CANARY}".encode(), b"step"),
           (f"target {CANARY}".encode(),), (b"source inner.gwb",), (b"source inner_named.gwb",),
           (b"save-script saved.gwb", b"source saved.gwb"))
SPECIAL = (b"say hello", b"pause", b"\xff\xfe garbage", b"\x00", b"say " + b"x" * 100_000,
           b"target " + str(SAMPLES / "tiny_cnn.onnx").encode(),
           b"target " + str(SAMPLES / "devrun" / "deadlock.py").encode(),
           b"target no_such_file.onnx", b"target ../../../etc", b"# comment", b"\r",
           *(line for group in CONSENT for line in group))
# The script's header: none, naming the canary (as its target lines spell it or not), or
# naming another program.
HEADERS = (None, f"#   programs: {CANARY}", f"# programs: ./{CANARY}",
           "#   programs: other.py", f"# programs: other.py, {CANARY}")


def cases() -> st.SearchStrategy:
    line = st.one_of(command_line().map(lambda s: s.encode("utf-8", "surrogatepass")),
                     st.sampled_from(SPECIAL), st.binary(max_size=40))
    opening = st.lists(st.sampled_from(CONSENT), max_size=3).map(
        lambda groups: [line for group in groups for line in group])
    lines = st.builds(list.__add__, opening, st.lists(line, max_size=8))
    return st.tuples(lines, st.sampled_from((b"\n", b"\r\n")),
                     st.booleans(), st.sampled_from((None, b"", b"\xff\xfe", b"> step\n")),
                     st.booleans(), st.sampled_from(HEADERS))


def _consented(canary: str, allow: bool, header: str | None) -> bool:
    """May ``canary`` run? Only with --allow-programs, and named by the header of the script
    that opens it (a script the case saves names the canary only if the case's own target line
    was allowed to open it; inner.gwb names nothing)."""
    return allow and (canary == NAMED or canary == CANARY and header is not None
                      and CANARY in header)


def run(case: tuple, workdir: str) -> Verdict:
    lines, newline, keep_going, expected, allow, header = case
    here = Path(workdir) / "case"   # fresh each case: nothing an earlier case saved answers
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir()
    for canary in (CANARY, UNNAMED, NAMED):
        (here / canary).write_text(CANARY_PROGRAM)
    for name, text in INNER.items():
        (here / name).write_text(text)
    script = here / "case.gwb"
    script.write_bytes(newline.join(([header.encode()] if header else []) + lines))
    argv = ["run", str(script)] + (["--keep-going"] if keep_going else []) + (
        ["--allow-programs"] if allow else [])
    if expected is not None:
        (here / "expected.txt").write_bytes(expected)
        argv += ["--expect", str(here / "expected.txt")]
    verdict = judge_cli(argv)
    ran = (here / RAN).read_text().split() if (here / RAN).exists() else []
    for canary in dict.fromkeys(ran):
        if not _consented(canary, allow, header):
            return Verdict(CORRUPT, f"{canary} ran without consent (--allow-programs "
                                    f"{'given' if allow else 'not given'}, header {header!r})")
    return verdict


TARGET = Target("gwb", cases, lambda workdir: workdir, run)
