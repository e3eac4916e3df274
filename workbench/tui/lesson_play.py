"""A lesson playing in the app, a step at a time, by the one player (workbench/script/player.py):
its consent asked in a dialog before any line runs, its narration into the lesson panel as
paragraphs, a wait at each `pause` (space goes on), and the pane its output belongs to brought
forward (the outcomes say which: ``shown_pane``). The app runs each step on its worker and
hands the answer back here; this module decides nothing about the target."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.debugger.outcomes import Outcome, Printed, Show, TableOutcome
from workbench.script.consent import Consent, ConsentRefused
from workbench.script.player import Played, Player
from workbench.script.script_lines import ScriptError
from workbench.tui.lesson_panel import LessonPanel
from workbench.tui.screens import programs_question

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp


def shown_pane(outcomes: list[Outcome] | tuple[Outcome, ...]) -> str | None:
    """The pane the last of these outcomes that names one belongs on (None: no pane)."""
    panes = [o.pane for o in outcomes
             if isinstance(o, (Printed, TableOutcome, Show)) and o.pane is not None]
    return panes[-1] if panes else None


class LessonPlay:
    """The lesson the app plays (``player``), and whether it waits at a `pause`."""

    def __init__(self, app: WorkbenchApp) -> None:
        self.app = app
        self.player: Player | None = None
        self.paused = False

    @property
    def panel(self) -> LessonPanel:
        return self.app.query_one(LessonPanel)

    @property
    def playing(self) -> bool:
        return self.player is not None and not self.player.done

    @property
    def running(self) -> bool:
        """Playing on: neither at a pause nor at its end (nor stopped)."""
        return self.playing and not self.paused

    def begin(self, path: Path, allow_programs: bool) -> None:
        """Play once the user agrees to the host programs the lesson's header names (asked,
        unless --allow-programs agreed up front): until then none of its lines runs."""
        self.paused = False
        self.panel.start(path.stem)
        try:
            self.player = Player.open(path)
        except ScriptError as exc:
            self._refused(str(exc))
            return
        question = self.player.question
        if question is None or allow_programs or self.app.access.served:
            # (a served tab's student is not asked: the teacher's `gewb serve` decided, and the
            # tab's access runs only what the teacher agreed to)
            self._agreed(Consent(allow=True))
            return

        def answered(yes: bool | None) -> None:
            self._agreed(Consent(ask=lambda _question: bool(yes)))
        self.app.push_screen(programs_question(question), answered)

    def _agreed(self, consent: Consent) -> None:
        try:
            self.player.agree(consent)
        except ConsentRefused as exc:   # the words every face says (consent.py)
            self._refused(str(exc))
            return
        self.step()

    def step(self) -> None:
        """The next step on the app's worker, or the lesson's end."""
        self.paused = False
        if self.player is None:
            return
        if self.player.done:
            self.panel.ended("end of the lesson")
            return
        self.app.run_lesson_step(self.player)

    def answered(self, played: Played | None, outcomes: list[Outcome]) -> None:
        """A step's answer, already logged: narration to the panel, the pane its output
        belongs on brought forward, then wait (a `pause`), stop (an error) or go on."""
        if played is None:   # the worker failed before the step ran: the log says why
            self._stopped("an internal error (the log says which)")
            return
        if played.narration:
            self.panel.say(played.narration)
        pane = shown_pane(outcomes)
        if pane is not None:
            self.app.bring_forward(pane, outcomes)
        if played.errors:
            self._stopped(played.errors[0])
        elif played.paused:
            self.paused = True
            self.panel.paused()
        else:
            self.step()

    def _stopped(self, where: str) -> None:
        self.panel.ended(f"lesson stopped at {where}")
        self.player = None

    def _refused(self, message: str) -> None:
        self.player = None
        self.panel.ended(message)
        self.app.lesson_refused(message)
