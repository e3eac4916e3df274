"""The key bar at the foot of the screen: the keys of the key map that are shown, each dimmed
while it does not apply (the app's ``check_action`` answers None) and left out when it is
hidden (False). A lesson's "go on" comes first while it waits. One line drawn as one text:
Textual's Footer makes a widget per key and mounts them again whenever a key's state changes,
which cost the first screen and each step a relayout. A click on a key runs its action."""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.actions import parse
from textual.binding import Binding
from textual.widget import Widget

from workbench.tui.keymap import BINDINGS, PANE_KEYS_LABEL

FIRST = ("lesson_next",)   # shown first when they apply: what the reader is waiting on


def shown_bindings() -> list[Binding]:
    """The key map's shown keys in order, the pane keys as one entry (their group)."""
    out: list[Binding] = []
    for b in BINDINGS:
        if b.show and not (b.group is not None and out and out[-1].group is b.group):
            out.append(b)
    return out


class KeyBar(Widget):
    DEFAULT_CSS = "KeyBar { height: 1; background: $panel; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._spans: list[tuple[int, int, str]] = []   # x from, x to, the action a click runs

    def _entries(self) -> list[tuple[str, str, bool, str]]:
        """(key, what, live, action) of each key to show, in order."""
        entries = []
        for b in shown_bindings():
            if b.group is not None:   # the pane keys; a narrow screen's pane bar shows them
                if not self.screen.has_class("-narrow"):
                    entries.append((PANE_KEYS_LABEL, b.group.description, True, ""))
                continue
            _, name, params = parse(b.action)
            live = self.app.check_action(name, params)
            if live is not False:
                entry = (b.key_display or b.key, b.description, bool(live), b.action)
                entries.insert(0, entry) if name in FIRST else entries.append(entry)
        return entries

    def render(self) -> Text:
        entries = self._entries()
        # roomy when it fits, else one space apart
        roomy = sum(len(k) + len(w) + 3 for k, w, _, _ in entries) <= self.size.width
        pad = " " if roomy else ""
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        for key, what, live, action in entries:
            start = len(text)
            text.append(pad + key, style="bold" if live else "dim")
            text.append(f" {what} ", style="" if live else "dim")
            if live and action:
                self._spans.append((start, len(text), action))
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, action in self._spans:
            if start <= event.x < end:
                self.app.run_action(action)
                return
