"""The key bar at the foot of the screen: the keys of the key map that are shown, each dimmed
while it does not apply (the app's ``check_action`` answers None) and left out when it is
hidden (False). A lesson's "go on" comes first while it waits. One line drawn as one text:
Textual's Footer makes a widget per key and mounts them again whenever a key's state changes,
which cost the first screen and each step a relayout. A click on a key runs its action."""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.actions import parse
from textual.binding import Binding
from textual.widget import Widget

from workbench.tui.keymap import BINDINGS, PANE_KEYS_LABEL

FIRST = ("lesson_next",)   # shown first when they apply: what the reader is waiting on
SAID_ELSEWHERE = ("focus_command",)   # the command line's placeholder says `:` already
KEPT = ("lesson_next", "debug('continue')", "step", "step_finer")   # their words go last


def _fit(entries: list[Shown], width: int) -> list[Shown]:
    """Short of room, keys lose their words from the end of the bar (Lessons, Quit ...) so
    the stepping keys' words stay; theirs go only if nothing else is left to drop."""
    def length(es: list[Shown]) -> int:
        return sum(len(e.key) + len(e.what) + 2 if e.what else len(e.key) + 1 for e in es)
    out = list(entries)
    for kept in (False, True):
        for i in reversed(range(len(out))):
            if length(out) <= width:
                return out
            e = out[i]
            if e.what and (e.action in KEPT or e.name in KEPT) == kept:
                out[i] = Shown(e.key, "", e.live, e.action)
    return out


@dataclass(frozen=True)
class Shown:
    key: str
    what: str
    live: bool
    action: str   # the binding's action string ("" for the pane keys: a group)

    @property
    def name(self) -> str:
        return parse(self.action)[1] if self.action else ""


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

    def _entries(self) -> list[Shown]:
        entries: list[Shown] = []
        for b in shown_bindings():
            if b.group is not None:   # the pane keys; a narrow screen's pane bar shows them
                if not self.screen.has_class("-narrow"):
                    entries.append(Shown(PANE_KEYS_LABEL, b.group.description, True, ""))
                continue
            _, name, params = parse(b.action)
            live = self.app.check_action(name, params)
            if live is not False:
                entry = Shown(b.key_display or b.key, b.description, bool(live), b.action)
                entries.insert(0, entry) if name in FIRST else entries.append(entry)
        return entries

    def render(self) -> Text:
        entries = self._entries()
        # roomy when it fits; else one space apart, a dimmed key without its words and no
        # `:` (the command line above says it)
        roomy = sum(len(e.key) + len(e.what) + 3 for e in entries) <= self.size.width
        if not roomy:
            entries = [Shown(e.key, e.what if e.live else "", e.live, e.action)
                       for e in entries if e.name not in SAID_ELSEWHERE]
            entries = _fit(entries, self.size.width)
        pad = " " if roomy else ""
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        for e in entries:
            start = len(text)
            text.append(pad + e.key, style="bold" if e.live else "dim")
            text.append(f" {e.what} " if e.what else " ", style="" if e.live else "dim")
            if e.live and e.action:
                self._spans.append((start, len(text), e.action))
        return text

    async def on_click(self, event: events.Click) -> None:
        for start, end, action in self._spans:
            if start <= event.x < end:
                await self.app.run_action(action)
                return
