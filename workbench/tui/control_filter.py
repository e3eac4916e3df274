"""The net under everything the app draws: a control character that reached a line (a name the
panes did not escape) is drawn as its control picture instead of being sent to the terminal
(workbench/terminal_text.py)."""
from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from workbench.terminal_text import picture


class ControlFilter(LineFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(picture(s.text), s.style, s.control) if not s.control else s
                for s in segments]
