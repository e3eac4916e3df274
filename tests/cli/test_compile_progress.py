"""A long compile shows its stage and pass on a terminal's stderr, and nothing elsewhere."""
from __future__ import annotations

import io

from ge_core.passes.events import PassBegin
from ge_core.stage_events import StageBegin
from npu_emu.trace import TraceBus
from workbench.cli import compile_progress as progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _compile_events(bus: TraceBus) -> None:
    bus.emit(StageBegin, "OptimizeOriginalGraph", "g\x1b[31m")
    bus.emit(PassBegin, "OptimizeOriginalGraph", "ConstantFoldingPass", "g")


def test_a_terminal_sees_stage_and_pass_then_a_clean_line(monkeypatch) -> None:
    monkeypatch.setattr(progress, "QUIET_FOR", 0.0)
    monkeypatch.setattr(progress, "REDRAW_EVERY", 0.0)
    out, bus = Terminal(), TraceBus()
    with progress.compile_progress(bus, out):
        _compile_events(bus)
    text = out.getvalue()
    assert "OptimizeOriginalGraph > ConstantFoldingPass" in text
    assert text.endswith("\r\x1b[K") and not bus.observed


def test_a_short_compile_shows_nothing() -> None:
    out, bus = Terminal(), TraceBus()
    with progress.compile_progress(bus, out):
        _compile_events(bus)
    assert out.getvalue() == ""


def test_a_pipe_sees_nothing_and_the_bus_stays_unobserved(monkeypatch) -> None:
    monkeypatch.setattr(progress, "QUIET_FOR", 0.0)
    out, bus = io.StringIO(), TraceBus()
    with progress.compile_progress(bus, out):
        assert not bus.observed
        _compile_events(bus)
    assert out.getvalue() == ""
