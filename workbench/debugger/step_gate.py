"""The step gate (docs/architecture.md invariant 3): the debuggee runs on a worker thread and every
trace event passes through here; when the current stop predicate matches, the worker parks until
the next command. Exactly one of the two threads runs at any moment, so a stepped run emits the
same events in the same order as a free run: stepping never changes what is being watched. The
worker runs in a copy of the context the gate was made in, so the target works in its maker's World
(a context variable, npu_emu/world.py, does not follow a new thread by itself).
"""
from __future__ import annotations

import contextvars
import threading
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Callable, Iterator

from npu_emu.base import gc_pause
from npu_emu.base.trace import Hears, Receiver, TraceBus, TraceEvent
from workbench.sigint import sigint_handled_by

StopPredicate = Callable[[TraceEvent], bool]
CLOSE_WAIT_S = 5.0


class TargetAbandoned(BaseException):
    """Raised inside the worker to unwind a target the debugger closed while it was parked.
    A BaseException so the target's own ``except Exception`` cannot swallow it."""


# The threads inside ``passing_through``: a set, not a threading.local, since the gate asks at
# every event and a set that is empty answers for every thread with one truth test.
_passing: set[int] = set()


@contextmanager
def passing_through(bus: TraceBus) -> Iterator[None]:
    """Inside, on this thread, events reach observers but no gate parks on them; those on
    ``bus`` (the parked run's, whose gate holds receivers) are all built, for the gate to let
    pass: a receiver would have checked them."""
    ident = threading.get_ident()
    with bus.whole_events():
        _passing.add(ident)
        try:
            yield
        finally:
            _passing.discard(ident)


class StepGate:
    def __init__(self, target: Callable[[], Any], bus: TraceBus) -> None:
        self._target = target
        self._bus = bus
        self._context = contextvars.copy_context()
        self._cond = threading.Condition()
        self._worker_turn = False
        self._stop: StopPredicate = lambda e: False
        self._closing = False
        self._thread: threading.Thread | None = None
        self.parked_at: TraceEvent | None = None
        self.finished = False
        self.result: Any = None
        self.error: BaseException | None = None

    def run_until(self, stop: StopPredicate, hears: Hears | None = None) -> TraceEvent | None:
        """Resume the target until an event satisfies ``stop`` (returned, the worker parked on
        it) or the target ends (None; see ``result`` / ``error``). ``hears``, if given, says
        which classes of event ``stop`` may look at: it is handed no other (their events are
        not even built, when the gate is the bus's only observer). For a class it may give,
        instead of True, ``stop``'s test on the event's tick and fields: while the gate is
        the bus's only observer, those events are built only to park on."""
        if self.finished:
            return None
        with self._cond:
            self._stop = stop
            self._bus.hear_only(self._gate, None if hears is None else self._receiving(hears),
                                self._park)
            self.parked_at = None
            self._worker_turn = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._context.run, args=(self._work,),
                                                name="gewb-target", daemon=True)
                self._thread.start()
            else:
                self._cond.notify_all()
        return self.wait()

    def wait(self) -> TraceEvent | None:
        """Block until the worker parks or ends. After a KeyboardInterrupt escaped
        ``run_until`` the worker is still running: ``interrupt()``, then wait here."""
        with self._cond:
            # In slices: a signal that lands just before the wait blocks is only handled once
            # the wait returns (CPython runs handlers between bytecodes), so a Ctrl-C during a
            # long continue would wait for the target's end; a slice bounds that to 50 ms.
            while not self._cond.wait_for(lambda: not self._worker_turn, timeout=0.05):
                pass
        return self.parked_at

    def interrupt(self) -> None:
        """Park the running worker at its next event, whatever the stop predicate says (it
        still sees the event: observers keeping state in it stay right). Safe from any
        thread: one attribute store, which the worker reads at every event."""
        predicate = self._stop

        def then_park(event: TraceEvent) -> bool:
            predicate(event)
            return True
        self._stop = then_park
        self._bus.hear_only(self._gate, None)   # the next event may be of any class

    def parking_on_ctrl_c(self) -> AbstractContextManager[None]:
        """Inside, Ctrl-C parks the worker (``interrupt``) rather than raising KeyboardInterrupt
        into the wait, where it can land inside the condition variable's own bookkeeping and be
        lost (in the main thread only: see ``sigint_handled_by``)."""
        return sigint_handled_by(lambda signum, frame: self.interrupt())

    def close(self) -> None:
        """Abandon the target: parked, it unwinds with TargetAbandoned; running, it does at its
        next abandon point (a host program's next line), so a busy loop ends too. A target
        stuck where no event comes (a sleep, a C loop) is left to its daemon thread after a
        while rather than hanging the face that closes it. Closing again does nothing: a stuck
        worker is not waited for twice."""
        if self._thread is None or self.finished or self._closing:
            return
        with self._cond:
            self._closing = True
            self._bus.hear_only(self._gate, None)   # abandon points, of whatever class
            self._worker_turn = True
            self._cond.notify_all()
        self._thread.join(CLOSE_WAIT_S)
        if self._thread.is_alive():   # stuck, maybe inside a pause: the collector runs on
            gc_pause.abandon(self._thread)

    # -- worker side ---------------------------------------------------------------------------
    def _work(self) -> None:
        self._bus.subscribe(self._gate, parks=True)
        try:
            self.result = self._target()
        except TargetAbandoned:
            pass
        except BaseException as exc:  # the target's failure is the debugger's to show
            self.error = exc
        finally:
            self._bus.unsubscribe(self._gate)
            self._target = None   # done with: a run holds its gate, whose target is the run's
            with self._cond:
                self.finished = True
                self._worker_turn = False
                self._cond.notify_all()

    def _gate(self, event: TraceEvent) -> None:
        # Closing: the target is unwinding, and its cleanup (finally blocks freeing device
        # memory) still emits; nobody will resume a park now. At an abandon point (a host
        # program's line) it unwinds from a busy loop that would otherwise never park.
        if self._closing:
            if getattr(event, "abandon_point", False) \
                    and threading.get_ident() == self._thread.ident:
                raise TargetAbandoned
            return
        # An event from an expression the user evaluates in a parked host frame (it may call
        # the facade) is seen by observers but never parks: the face's thread must not block.
        if (_passing and threading.get_ident() in _passing) or not self._stop(event):
            return
        self._park(event)

    def _receiving(self, hears: Hears) -> Hears:
        """``hears`` with each predicate on fields it gives the bus's receiver, which parks on
        the events it answers true for (``_park``, its checks made): as ``_gate`` would, since
        no receiver is handed anything once the gate closes (close) or a thread passes through
        (passing_through). An abandon point's class is always built: closing, ``_gate`` must
        see it."""
        def receiving(cls: type) -> bool | Receiver:
            how = hears(cls)
            if callable(how) and getattr(cls, "abandon_point", False):
                return True
            return how
        return receiving

    def _park(self, event: TraceEvent) -> None:
        with self._cond:
            if self._closing:   # closed since the worker last looked: nobody will resume it
                raise TargetAbandoned
            self.parked_at = event
            self._worker_turn = False
            self._cond.notify_all()
            with gc_pause.lifted():   # the face runs meanwhile, and needs the collector
                self._cond.wait_for(lambda: self._worker_turn)
            if self._closing:
                raise TargetAbandoned
