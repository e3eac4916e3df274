"""CPython's cyclic collector around re-executions (going back in time re-runs the target).

A re-run makes graph objects (nodes, anchors, descs) in reference cycles, all live. With the
collector running, its passes would rescan them, and every live object of the graph a full pass
reaches, again and again while the face waits: so while the face waits for a re-run to reach its
tick the collector is paused (``re_executing``). Unlike a forward run's pause, which lifts while
its worker is parked (npu_emu/base/gc_pause.py), this one needs no lifting: nothing runs on the
face's thread meanwhile, and it ends as soon as the worker parks.

A big graph is also a cost to every full collection after: at 40k nodes the live graph and the
checkpoints' journal are ~1.5M objects, and a full collection took 1-2 s, set off every few
hundred thousand objects the run keeps (a forward run to tick 1M of bench_debugger's 40k-node
compile made nine, and every few reverse-steps one). So what is alive when a checkpoint is made,
and when a re-execution lands, is frozen (``frozen``: ``gc.freeze`` moves every tracked object
into the permanent generation, which no collection scans, in constant time). That is safe
because little of it becomes garbage the collector alone could free: the journal's rewind breaks
the cycles of every node and graph made since the checkpoint (ge_core/graph/journal.py), a pass
that removes a node breaks its cycles (ComputeGraph.remove_node), a run beside the line is
discarded with its graphs' cycles broken (``dropped``: Run.discard), and so is a line's graph
when the debugger leaves the line (CheckpointStore.release). A forward run of a 5k-node model
to its end left none. What does (a closed world's own cycles, ~50-130 objects a re-run; a
host program's own, ~1.5k for sample_models/acl_inference.py) is collected every ``THAW_EVERY``
landings, and when the debugger closes (``thaw``); its devices' memory, a 2 GiB reservation
each, is let go at once when the run is discarded (World.discard), when a device is reset (a host
program's acl.finalize) and when a snapshot restore replaces the runtime
(Runtime.release_memory), though kernel tasks kept views of it (DeviceMemory.keep_views).

That collection scans everything frozen, 1.3 s at 40k nodes, so it is not made by the landing
that falls due, inside the step the user waits for: the debugger's Reaper makes it after a later
landing, once the stop has been shown a while and no other step has come (``collect_if_due``),
and whatever comes once it is ``overdue``.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from npu_emu.base.gc_pause import collector_paused

if TYPE_CHECKING:
    from workbench.debugger.run import Run

THAW_EVERY = 256   # landings between two collections of what died frozen (see above)
_pausing = False   # the face's pause under way (nested ones share it)
_freezes = 0   # landings frozen since the last thaw
# Held while freezing and while collecting (on the reaper's thread): a freeze between the
# collection's thaw and its scan would hide from it what it is to collect.
_lock = threading.Lock()


def frozen(landing: bool = False) -> None:
    """What is alive now is left out of the collector's scans (see above); a re-execution's
    ``landing`` counts towards the next collection."""
    global _freezes
    with _lock:
        _freezes += landing
        gc.freeze()


def due() -> bool:
    """Whether THAW_EVERY landings have passed since the last collection."""
    return _freezes >= THAW_EVERY


def overdue() -> bool:
    """Whether four times as many have: steps that came too fast to collect between (a script,
    a held key) keep the garbage from growing without bound."""
    return _freezes >= 4 * THAW_EVERY


def collect_if_due() -> None:
    """If due, collect what died frozen and freeze what is alive again (see above)."""
    with _lock:
        if due():
            thaw()
            gc.collect()
            gc.freeze()


def thaw() -> None:
    """Everything frozen is scanned again (the debugger is closed, or it is time to collect)."""
    global _freezes
    _freezes = 0
    gc.unfreeze()


@contextmanager
def re_executing() -> Iterator[None]:
    """Around a wait for a re-execution to reach its tick, the collector paused; nested, the
    outer pause's. At the end of the outermost, what is alive is frozen, if the collector ran
    as it began (else another pause is in force, the app's or a test's: it decides)."""
    global _pausing
    if _pausing:
        yield
        return
    _pausing, owned = True, gc.isenabled()
    try:
        with collector_paused():
            yield
            if owned:
                frozen(landing=True)
    finally:
        _pausing = False


def dropped(run: Run) -> None:
    """Close ``run`` (a Run the face no longer shows) and discard it (Run.discard)."""
    with collector_paused():   # its worker, unwinding, ends its own pause: not this one
        run.close()   # first: its worker's unwinding is done before its state goes
        run.discard()
