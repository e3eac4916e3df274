"""Checkpoint copies are kept out of the cyclic collector's scans (frozen), and what dies frozen
is collected once it outgrows what the copies hold (workbench/debugger/collector.py)."""
import gc
import sys
import weakref

import pytest

from workbench.debugger import collector


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def fresh(monkeypatch):
    gc.collect()
    gc.unfreeze()
    monkeypatch.setattr(collector, "_held", 0)
    monkeypatch.setattr(collector, "_frozen", 0)
    monkeypatch.setattr(collector, "FROZEN_SLACK", 100)
    yield
    gc.unfreeze()


def test_a_copy_is_counted_and_frozen_with_the_collector_left_running(fresh):
    copy, objects, size = collector.frozen_copy(lambda: [Cycle() for _ in range(1000)],
                                                sized=True)
    assert objects >= 1000 and collector._held == objects
    # the list and its 1000 objects, each once: nothing made before the copy is counted
    each = sys.getsizeof(Cycle())
    assert sys.getsizeof(copy) + 1000 * each <= size < sys.getsizeof(copy) + 1000 * each + 1000
    assert gc.get_freeze_count() >= objects and gc.isenabled()
    # counted as frozen, not walked: it still counts the few frozen temporaries freed since
    assert 0 <= collector._frozen - gc.get_freeze_count() < 100
    collector.thawed(objects)
    assert collector._held == 0 and gc.get_freeze_count() == 0   # none held: none frozen


def test_frozen_garbage_is_collected_once_it_outgrows_the_copies_held(fresh):
    held, objects, _ = collector.frozen_copy(lambda: [Cycle() for _ in range(1000)])
    dead = [Cycle() for _ in range(5000)]   # alive when the next copy freezes them, then dead
    probe = weakref.ref(dead[0])
    collector.frozen_copy(lambda: [Cycle()])
    del dead
    gc.collect()
    assert probe() is not None   # frozen: no collection sees it
    collector.frozen_copy(lambda: [Cycle()])   # 5000 dead > 2 x ~1000 held + 100: collected
    assert probe() is None and len(held) == 1000
