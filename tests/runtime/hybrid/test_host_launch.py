"""The host's launch latency in simulated time (TaskScheduler.host_issue, CostModel.host_launch_ns):
an idle device waits for the host, a busy one does not, and launches that never call it (sink
mode, direct launches) keep their timings."""
from __future__ import annotations

import pytest

from npu_emu.runtime import Runtime, RuntimeConfig
from npu_emu.scheduler.cost_model import Unit
from npu_emu.world import World

SHORT, LONG = 500, 100_000


@pytest.fixture
def stream():
    rt = Runtime(RuntimeConfig(memory_bytes=1 << 20))
    with World(runtime=rt).entered():
        rt.set_device(0)
        yield rt.default_stream()


def test_an_idle_device_waits_for_the_host(stream):
    launch = stream.device.cost.host_launch_ns
    ts = stream.device.scheduler
    ts.host_issue(launch)
    assert ts.now == ts.host_now == launch
    stream.launch_timed("a", SHORT, Unit.AI_VECTOR)
    ts.host_issue(launch)          # the device finished "a" at launch + SHORT, then idled
    assert ts.now == 2 * launch and ts.retired == 1
    stream.launch_timed("b", SHORT, Unit.AI_VECTOR)
    stream.synchronize()
    assert ts.now == 2 * launch + SHORT


def test_a_busy_device_does_not_wait(stream):
    launch = stream.device.cost.host_launch_ns
    ts = stream.device.scheduler
    ts.host_issue(launch)
    stream.launch_timed("long", LONG, Unit.AI_VECTOR)
    ts.host_issue(launch)          # the host is ahead: "long" is still running
    assert ts.host_now == 2 * launch and ts.retired == 0
    stream.launch_timed("next", SHORT, Unit.AI_VECTOR)
    stream.synchronize()
    assert ts.now == launch + LONG + SHORT   # queued right behind "long"


def test_a_host_wait_brings_the_host_to_the_device_time(stream):
    launch = stream.device.cost.host_launch_ns
    ts = stream.device.scheduler
    stream.launch_timed("long", LONG, Unit.AI_VECTOR)
    stream.synchronize()
    assert ts.host_issue(launch) == LONG + launch


def test_launches_that_never_issue_from_the_host_keep_their_timings(stream):
    ts = stream.device.scheduler
    for _ in range(3):
        stream.launch_timed("k", SHORT, Unit.AI_VECTOR)
    stream.synchronize()
    assert ts.now == 3 * SHORT and ts.host_now == 0
