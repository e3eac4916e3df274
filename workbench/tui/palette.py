"""The command palette's providers (ctrl+p): every command of the command table (chosen, it is
put on the command line to complete), every pane (chosen, it is shown) and every lesson
(chosen, it plays)."""
from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from workbench.commands.table import COMMANDS
from workbench.script.lesson import LessonError, all_lessons
from workbench.tui.keymap import PANE_TITLES, PANES


def _entries(app) -> list[tuple[str, str, object]]:
    out = []
    for n, pane in enumerate(PANES, 1):
        out.append((f"pane {n}: {PANE_TITLES[pane]}", f"show the {PANE_TITLES[pane]} pane",
                    partial(app.action_pane, pane)))
    for c in COMMANDS.unique():
        out.append((f"command: {c.name}", c.usage, partial(app.prefill_command, c.name)))
    try:
        lessons = all_lessons()
    except LessonError:   # the lessons panel says which file is malformed
        lessons = []
    for lsn in lessons:
        out.append((f"lesson: {lsn.name}", lsn.summary, partial(app.play_lesson, lsn.path)))
    return out


class WorkbenchCommands(Provider):
    async def discover(self) -> Hits:
        for text, help_text, run in _entries(self.app):
            yield DiscoveryHit(text, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_text, run in _entries(self.app):
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), run, text=text, help=help_text)
