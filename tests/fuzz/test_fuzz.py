"""The fuzz harness (scripts/fuzz.py) on a short budget per target, as CI runs it: any case that
ends in a traceback, a raw Python error, a hang or silent corruption fails the test, and the
first bad cases are shown. Long runs: `python scripts/fuzz.py --target T --budget 10000`."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from fuzz import fuzz  # noqa: E402

BUDGET = 25          # cases per target: quick enough for the default suite
CASE_TIMEOUT = 120   # seconds; the worker is killed and the case counted a hang past it

# Targets added as their entry points are made robust (issue 15).
TARGETS = ["onnx", "om", "exec"]


@pytest.mark.parametrize("target", TARGETS)
def test_no_bad_verdict(target):
    result = fuzz(target, BUDGET, seed_value=0, timeout=CASE_TIMEOUT, mem_gb=8.0)
    assert result["cases"] > 0
    bad = "\n".join(f"{b['kind']}: {b['detail']}\n  case: {b['case']}" for b in result["bad"])
    assert not bad, bad
