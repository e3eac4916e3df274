"""A Ctrl-C that lands in a finalizer (an old event loop of the REPL's prompt, collected in the
middle of a command: the REPL's pty sweep) printed "Exception ignored in ... KeyboardInterrupt"
and a traceback; under gewb it is dropped unprinted, and any other finalizer error is reported
as before."""
from __future__ import annotations

import sys

from workbench.cli import _interrupts_unprinted


class _Finalizer:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __del__(self) -> None:
        raise self.exc


def test_a_ctrl_c_in_a_finalizer_is_not_reported_and_others_are(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(type(u.exc_value)))
    with _interrupts_unprinted():
        _Finalizer(KeyboardInterrupt())   # dropped at once: __del__ raises into the hook
        _Finalizer(ValueError("from a finalizer"))
    assert reported == [ValueError]
    _Finalizer(KeyboardInterrupt())   # the hook is the one before again
    assert reported == [ValueError, KeyboardInterrupt]
