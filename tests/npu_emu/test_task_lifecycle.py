"""A task's life (seed 003 §1.3.7): allocated with a device-wide id, filled in as an SQE at its
stream's tail, submitted, read by the TS at the SQ's head, reported on the CQ, and reclaimed by
the host's synchronize; a full SQ makes the host wait for the TS to free a slot, and a stream's
consumed SQEs are recycled so a long-lived stream stays small."""
import numpy as np

from conftest import empty, make_runtime, vec
from npu_emu.device import SqeSubmitted
from npu_emu.task_scheduler import SqeCompleted
from npu_emu.world import World


def _events(rt, kind):
    return [e for e in rt.recorder.events if isinstance(e, kind)]


def test_a_task_gets_a_device_wide_id_and_its_place_at_the_stream_tail_when_submitted():
    rt = make_runtime()
    with World(runtime=rt).entered():
        rt.set_device(0)
        s1, s2 = rt.create_stream(), rt.create_stream()
        x, y = vec(rt, np.ones(16, np.float32)), empty(rt, (16,))
        tasks = [s1.launch_kernel("Relu", [x], [y]), s2.launch_kernel("Relu", [x], [y]),
                 s1.launch_kernel("Relu", [x], [y])]
        assert [t.task_id for t in tasks] == sorted({t.task_id for t in tasks})
        assert [(t.stream, t.pos) for t in tasks] == [(s1, 0), (s2, 0), (s1, 1)]
        assert [e.task for e in _events(rt, SqeSubmitted)][-3:] == tasks
        assert s1.sq.tail_pos == 2 and s1.sq.head_pos == 0   # written, not yet read
        # the TS reads at the head and reports each retired SQE on the stream's CQ
        assert s1.synchronize() == 0
        assert s1.sq.head_pos == 2
        assert s1.cq.tail == 2 and s1.cq.unreclaimed == 0     # the synchronize reclaimed them
        assert s2.cq.tail <= 1 and s2.cq.head == 0            # s1's synchronize reclaims s1's
        rt.device().synchronize()
        assert s2.cq.unreclaimed == 0
    rt.close()


def test_a_full_sq_makes_the_host_wait_until_the_ts_frees_a_slot():
    rt = make_runtime(sq_depth=2)
    with World(runtime=rt).entered():
        rt.set_device(0)
        s = rt.create_stream()
        x, y = vec(rt, np.ones(16, np.float32)), empty(rt, (16,))
        for _ in range(5):
            s.launch_kernel("Relu", [x], [y])
            assert s.sq.pending <= 2        # never more SQEs in flight than the SQ holds
        retired_before_last_submit = len(_events(rt, SqeCompleted))
        assert retired_before_last_submit >= 3   # the host drove the TS to make room
        assert s.synchronize() == 0 and s.cq.tail == 5
    rt.close()


def test_a_long_lived_streams_consumed_sqes_are_recycled():
    rt = make_runtime()
    with World(runtime=rt).entered():
        rt.set_device(0)
        s = rt.create_stream()
        x, y = vec(rt, np.ones(4, np.float32)), empty(rt, (4,))
        for _ in range(3):
            for _ in range(2500):
                s.launch_kernel("Relu", [x], [y])
            assert s.synchronize() == 0
        assert s.sq.tail_pos == 7500                   # positions keep counting
        assert len(s.sq.entries) < 7500 and s.sq.base > 0   # the consumed SQEs were dropped
    rt.close()
