"""What every pane is: a numbered, maximisable part of the screen that reads its view data from
the engine in the app's worker (``read``: engine views only, no widgets) and shows it on the UI
thread (``show``). Attributes go down (the app calls these), messages go up."""
from __future__ import annotations

from typing import Any

from textual import events
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from workbench.debugger.targets.target_kind import Capability, TargetKind
from workbench.tui.session_views import SessionViews
from workbench.tui.tree_table import TreeTable

NEVER = object()   # what a pane has shown before its first show


class Pane(Vertical):
    PANE_ID = ""
    TITLE = ""
    NEEDS: Capability | None = None   # what a target must have for it to show something
    ALLOW_MAXIMIZE = True
    BREAKS = False   # F9 can break on what is selected here
    can_focus = False

    def __init__(self) -> None:
        super().__init__(id=self.PANE_ID, classes="pane")
        self.stale = True
        self.shown: Any = NEVER   # the data last drawn

    class TitleClicked(Message):
        """A click on the pane's title (its top border): the app maximises the pane."""

        def __init__(self, pane: Pane) -> None:
            super().__init__()
            self.pane = pane

    def on_click(self, event: events.Click) -> None:
        if event.widget is self and event.y == 0:
            self.post_message(self.TitleClicked(self))

    def on_show(self) -> None:
        """Back on screen (a resize across the breakpoints, a number key, a restore): a pane
        that missed answers while hidden reads again."""
        if self.stale and self.app.is_mounted:
            self.app.refresh_pane(self)

    def unchanged(self, data: Any) -> bool:
        """Nothing to redraw: every redraw of a region costs a frame of it."""
        return data == self.shown

    def on_mount(self) -> None:
        self.border_title = self.TITLE

    def focus_main(self) -> None:
        """Focus what the keys of this pane act on (its table, its stream grid ...), now:
        Widget.focus waits a turn, and a key already queued behind this one (a `:` typed
        right after Enter) would lose its focus to it."""
        for widget in self.query("*"):
            if widget.focusable and widget.display:
                self.screen.set_focus(widget)
                return

    def applies(self, kind: TargetKind | None) -> bool:
        return kind is None or self.NEEDS is None or kind.has(self.NEEDS)

    def read(self, views: SessionViews) -> Any:
        """On the worker, while the target is parked: the data ``show`` draws."""
        return None

    def show(self, data: Any) -> None:
        """On the UI thread: draw what ``read`` returned."""

    def breakpoint_spec(self) -> str | None:
        """The `break` arguments for what is selected here (F9), if anything."""
        return None

    def find(self, text: str, step: int = 1) -> bool:
        """`/`, n and N: the next occurrence of ``text`` (``step`` -1: the previous) in what
        the pane shows, brought into view and marked; False if there is none. Here: the rows
        of its table, the cursor on the row found."""
        table = next((t for t in self.query(TreeTable) if t.display), None)
        return table is not None and table.find(text, step)

    def end_search(self) -> None:
        """Esc: the search is over, its mark goes."""


def redraw(static: Static, content: Any, key: Any, shape: Any = None) -> None:
    """Update ``static`` if what it shows (``key``) changed; lay the screen out again only if
    its ``shape`` (its height: lines, rows) changed too. A relayout redraws every widget."""
    drawn = getattr(static, "_drawn_as", None)
    if drawn is not None and drawn[0] == key:
        return
    static.update(content, layout=drawn is None or drawn[1] != shape)
    static._drawn_as = (key, shape)
