"""The fuzz harness (scripts/fuzz.py) on a short budget per target, as CI runs it: any case that
ends in a traceback, a raw Python error, a hang or silent corruption fails the test, and the
first bad cases are shown. Long runs: `python scripts/fuzz.py --target T --budget 10000`."""
from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from fuzz import fuzz  # noqa: E402
from fuzzing.targets import TARGETS, gwb_scripts  # noqa: E402
from fuzzing.verdict import CORRUPT, OK, RAW, TYPED, Verdict, judge_text  # noqa: E402

BUDGET = 40          # cases per target: the eight take ~110 s together on the 2-core machine
CASE_TIMEOUT = 120   # seconds; the worker is killed and the case counted a hang past it


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_no_bad_verdict(target):
    result = fuzz(target, BUDGET, seed_value=0, timeout=CASE_TIMEOUT, mem_gb=8.0)
    assert result["cases"] == BUDGET
    bad = "\n".join(f"{b['kind']}: {b['detail']}\n  case: {b['case']}" for b in result["bad"])
    assert not bad, bad


@pytest.fixture
def in_process(tmp_path, monkeypatch):
    """A case run in this process, in its own folder; the harness freezes the heap between
    cases (verdict.release_last_case), which the rest of the suite must not inherit."""
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    gc.unfreeze()


def _gwb(lines: list[bytes], allow: bool, header: str | None, workdir: Path):
    case = (lines, b"\n", False, None, allow, header)
    verdict = gwb_scripts.run(case, str(workdir))
    log = workdir / "case" / gwb_scripts.RAN
    return verdict.kind, log.read_text().split() if log.exists() else []


def test_the_gwb_target_runs_a_canary_only_with_consent(in_process):
    tmp_path = in_process
    opened = [b"target canary.py", b"continue"]
    assert _gwb(opened, True, "#   programs: canary.py", tmp_path) == (OK, ["canary.py"])
    assert _gwb(opened, False, "#   programs: canary.py", tmp_path) == (TYPED, [])
    assert _gwb(opened, True, "#   programs: other.py", tmp_path) == (TYPED, [])
    # a sourced script's header answers for its own lines only
    assert _gwb([b"source inner.gwb"], True, "#   programs: canary.py", tmp_path) == (TYPED, [])
    assert _gwb([b"source inner_named.gwb"], True, None, tmp_path) == (OK, ["named_canary.py"])


def test_the_gwb_target_calls_a_program_run_without_consent_corruption(in_process,
                                                                        monkeypatch):
    """The oracle can fail: with the session's consent check gone, the canary runs and the
    case is silent corruption, though the replay itself succeeds."""
    import workbench.commands.session as session
    monkeypatch.setattr(session, "check_program", lambda *args: None)
    kind, ran = _gwb([b"source inner.gwb"], True, None, in_process)
    assert (kind, ran) == (CORRUPT, ["unnamed_canary.py"])


def test_the_escape_target_sees_a_sequence_that_reaches_the_output_raw(in_process, monkeypatch):
    """The oracle can fail: with the one escaping function letting everything through, a `say`
    line's screen clear reaches the output raw."""
    import re

    import workbench.terminal_text as terminal_text
    from fuzzing.targets import escape_text
    assert escape_text.run(("\x1b[2J", "say"), in_process).kind == OK
    monkeypatch.setattr(terminal_text, "_CONTROL", re.compile("(?!)"))
    assert escape_text.run(("\x1b[2J", "say"), in_process).kind == RAW


def test_a_users_expression_raising_is_its_answer_and_our_python_error_is_raw():
    own = "print stage: the expression raised NameError: name 'stage' is not defined"
    assert judge_text(Verdict(TYPED), own).kind == TYPED
    assert judge_text(Verdict(OK), "print stage: NameError: name 'stage' is not defined").kind \
        == RAW
    assert judge_text(Verdict(TYPED), own + "\nerror: invalid literal for int() with base 10: "
                                            "'¹'").kind == RAW   # only that line's words pass
