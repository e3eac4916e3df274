"""SIGINT taken by a handler of the caller's for a block, then handled as before: where a
Ctrl-C raised as KeyboardInterrupt would land somewhere it breaks (a condition variable's
bookkeeping, a prompt's half-built event loop)."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator


@contextmanager
def sigint_handled_by(handler: Callable[[int, Any], object] | signal.Handlers
                      ) -> Iterator[None]:
    """Inside, SIGINT goes to ``handler`` (a function of the signal and frame, or
    ``signal.SIG_IGN``). Only the main thread takes signals; elsewhere, or under a handler
    Python did not install, nothing changes."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is None:
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
