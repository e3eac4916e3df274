"""The conformance suites through the two device vias of the v2 runtime:

    device-v2      parse -> compile -> build -> lower -> ModelV2Executor on the emulated device
    device-hybrid  parse -> compile -> HybridDavinciModel (shapes inferred at run time)

Every case that passes on the host passes here, with the suites' tolerances. The small suites
and one light model run by default; the whole light suites are slow."""
from __future__ import annotations

import pytest

from workbench.conformance.runner import run_suite

VIAS = ["device-v2", "device-hybrid"]


def _assert_all_pass(via: str, suite: str, passed: int, keyword: str = "") -> None:
    report = run_suite(suite, via, keyword=keyword)
    assert not report.failed, [(r.case, r.reason) for r in report.failed]
    assert report.count("PASS") == passed


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("suite, passed", [("pytorch-operator", 35), ("pytorch-converted", 82),
                                           ("simple", 21)])
def test_small_suites(via, suite, passed):
    _assert_all_pass(via, suite, passed)


@pytest.mark.parametrize("via", VIAS)
def test_one_light_model(via):
    _assert_all_pass(via, "light", 1, keyword="squeezenet")


@pytest.mark.slow
@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("suite", ["light", "light-random"])
def test_light_suites(via, suite):
    _assert_all_pass(via, suite, 9)
