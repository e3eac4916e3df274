"""`gewb conformance --via device`: every case compiled, serialised to OM bytes, loaded by the v1
runtime on a fresh emulated NPU and executed there passes as it passes on the host. The small
suites run by default; the light suites are slow."""
import pytest

from workbench.conformance.runner import run_suite


def _same_as_host(suite: str, keyword: str = "") -> None:
    device, host = run_suite(suite, "device", keyword=keyword), run_suite(suite, "host",
                                                                          keyword=keyword)
    assert not device.failed, [(r.case, r.reason) for r in device.failed]
    assert device.counts() == host.counts()


@pytest.mark.parametrize("suite", ["pytorch-operator", "pytorch-converted"])
def test_small_suites(suite):
    _same_as_host(suite)


def test_one_light_model():
    _same_as_host("light", "squeezenet")


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["light", "light-random"])
def test_light_suites(suite):
    _same_as_host(suite)
