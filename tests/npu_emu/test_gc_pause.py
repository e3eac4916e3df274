"""Pauses of the cyclic collector are counted process-wide (npu_emu/base/gc_pause.py): it runs
again when the last pause in force ends, or while every one in force is a parked thread's."""
import gc
import threading

import pytest

from npu_emu.base import gc_pause
from npu_emu.base.gc_pause import collector_paused


@pytest.fixture
def running():
    assert gc.isenabled()
    yield
    assert gc.isenabled()


def _in_thread(body) -> None:
    t = threading.Thread(target=body)
    t.start()
    t.join()


def test_a_pause_that_ends_under_another_threads_pause_leaves_the_collector_off(running):
    seen = []
    worker_in, face_in, worker_out = threading.Event(), threading.Event(), threading.Event()

    def worker():
        with collector_paused():
            worker_in.set()
            assert face_in.wait(10)
        seen.append(gc.isenabled())   # the face's pause holds on
        worker_out.set()
    t = threading.Thread(target=worker)
    t.start()
    assert worker_in.wait(10)
    with collector_paused():
        face_in.set()
        assert worker_out.wait(10)
        t.join()
        seen.append(gc.isenabled())
    assert seen == [False, False]


def test_a_parked_threads_lifted_pause_lets_the_collector_run_unless_another_pause_holds(running):
    seen = []

    def parked(other_pause: bool):
        def body():
            with collector_paused(liftable=True):
                if other_pause:
                    with collector_paused():   # a non-liftable pause of the same thread
                        with gc_pause.lifted():
                            seen.append(gc.isenabled())
                else:
                    with gc_pause.lifted():
                        seen.append(gc.isenabled())
                seen.append(gc.isenabled())   # resumed: its pause in force again
        return body
    _in_thread(parked(False))
    _in_thread(parked(True))
    assert seen == [True, False, False, False]


def test_a_pause_with_the_collector_turned_off_by_hand_leaves_it_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_thread_given_up_on_inside_a_pause_no_longer_holds_the_collector(running):
    """A target stuck in a sleep inside a pause, which its debugger stopped waiting for: the
    collector runs again for everyone else, and the stuck pause's late end changes nothing."""
    inside, release = threading.Event(), threading.Event()

    def stuck():
        with collector_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=stuck)
    t.start()
    assert inside.wait(10)
    with collector_paused():
        pass
    assert not gc.isenabled()   # the stuck thread's pause still holds
    gc_pause.abandon(t)
    assert gc.isenabled()
    with collector_paused():   # pauses count as before
        assert not gc.isenabled()
    assert gc.isenabled()
    release.set()
    t.join()
    assert gc.isenabled() and gc_pause._in_force == 0


def test_a_pause_ended_by_an_exception_is_taken_off(running):
    with pytest.raises(RuntimeError):
        with collector_paused():
            raise RuntimeError("x")
    assert gc.isenabled() and gc_pause._in_force == 0


def test_a_thread_given_up_on_while_parked_leaves_the_collector_running_when_it_resumes(running):
    """A worker parked at a stop (its pause lifted) that its debugger gave up on: when it
    resumes at last, its pause is not in force again."""
    parked, release, seen = threading.Event(), threading.Event(), []

    def worker():
        with collector_paused(liftable=True):
            with gc_pause.lifted():
                parked.set()
                release.wait(10)
            seen.append(gc.isenabled())

    t = threading.Thread(target=worker)
    t.start()
    assert parked.wait(10) and gc.isenabled()   # lifted while parked
    gc_pause.abandon(t)
    release.set()
    t.join()
    assert seen == [True] and gc.isenabled()
    assert (gc_pause._in_force, gc_pause._lifted, gc_pause._threads) == (0, 0, {})
