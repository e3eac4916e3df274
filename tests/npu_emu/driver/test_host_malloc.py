"""The host malloc thresholds: set once, and a small model's inference stops re-faulting its
heap (the page faults are the behaviour, counted by the kernel)."""
from __future__ import annotations

import platform
import resource

import numpy as np
import pytest

from npu_emu.driver import host_malloc


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt only")
def test_freed_activations_stay_mapped():
    assert host_malloc.tune()

    def one_inference() -> None:  # SqueezeNet-sized activations, allocated and freed in turn
        live = []
        for _ in range(6):
            a = np.ones(3 << 20 >> 2, np.float32)
            live.append(a * 2)
        del live

    one_inference()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        one_inference()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 5 * 100, f"{faults} page faults for 5 runs that each touch 36 MB again"
