"""The workbench app: coordination only. A key or a typed command becomes a command line of the
one command table, run by the DebugSession in a worker thread (the target parks at the step gate);
the worker then reads, for each pane on screen, the view data it draws, and posts one message
with the answer. On the UI thread the log prints the outcomes as the REPL does, the status bar
shows where the target is, and each pane draws what it read. Errors are state: a red line in
the log and the status bar, never a crash."""
from __future__ import annotations

import io
import threading
from collections import deque
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.containers import Container, Horizontal
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.worker import Worker, WorkerState

from workbench.commands.history import history_path
from workbench.commands.session import DebugSession
from workbench.commands.table import QUIT
from npu_emu.base.gc_pause import collector_paused
from workbench.debugger.outcomes import Error, Finished, Outcome, Printed, Show
from workbench.debugger.targets.target_kind import Capability, TargetKind
from workbench.script.player import Player
from workbench.script.access import Access
from workbench.tui import keymap
from workbench.tui.command_line import CommandLine, session_completer
from workbench.tui.device_pane import DevicePane, StreamGrid
from workbench.tui.graph_pane import GraphPane
from workbench.tui.key_bar import KeyBar
from workbench.tui.lesson_panel import LessonPanel
from workbench.tui.lesson_play import LessonPlay, shown_pane
from workbench.tui.log_pane import LogPane
from workbench.tui.memory_pane import MemoryPane
from workbench.tui.palette import WorkbenchCommands
from workbench.tui.pane import Pane
from workbench.tui.passes_pane import PassesPane
from workbench.tui.screens import HelpScreen, quit_question
from workbench.tui.session_views import SessionViews, Status
from workbench.tui.source_pane import SourcePane
from workbench.serve.tab_status import TabStatus, report
from workbench.tui.control_filter import ControlFilter
from workbench.tui.startup import first_screen_drawn
from workbench.tui.status_bar import StatusBar
from workbench.tui.timeline_pane import TimelinePane
from workbench.tui.tree_table import TreeTable

# A light theme whose coloured text keeps WCAG AA contrast on white (Textual's own light theme
# draws green and amber text at about 3.5:1): GitHub's light palette, in the theme switcher.
LIGHT = Theme(name="workbench-light", primary="#0969DA", secondary="#8250DF", accent="#953800",
              warning="#7D4E00", error="#CF222E", success="#1A7F37", foreground="#1F2328",
              background="#FFFFFF", surface="#F6F8FA", panel="#EAEEF2", dark=False)

WIDE = 160   # columns from which the panes sit side by side
ROOMY = 200  # ... and from which the graph and passes panes have room for whole names
CONTROL_FILTER = ControlFilter()
SLOW = 1.0   # seconds after which a command is shown as running (and its keys dimmed)


@dataclass(frozen=True)
class Opening:
    """What the app opens: a target (as `target` takes it), or a lesson to play."""
    base_dir: Path
    target: str | None = None
    lesson: Path | None = None
    allow_programs: bool = False   # --allow-programs: the lesson's host programs agreed to
    access: Access = Access()      # what its sessions may touch (a served tab: its sandbox)


@dataclass
class Job:
    """One turn of the worker: a command line, or a read of the parked world."""
    line: str | None = None
    read: Callable[[SessionViews], Any] | None = None
    then: Callable[[Any], None] | None = None
    panes: list[Pane] = field(default_factory=list)
    lesson: Player | None = None   # a lesson's next step, played on the worker


class Answered(Message):
    def __init__(self, job: Job, outcomes: list[Outcome], result: Any,
                 data: dict[str, Any], status: Status) -> None:
        super().__init__()
        self.job, self.outcomes, self.result, self.data, self.status = \
            job, outcomes, result, data, status


class WorkbenchApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "GE Workbench"
    BINDINGS = keymap.BINDINGS
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide"), (ROOMY, "-wide-roomy")]
    ALLOW_IN_MAXIMIZED_VIEW = "KeyBar, StatusBar, CommandLine, #hint"
    # Esc closes the innermost thing first (a search, a diff, the graph filter) and restores
    # a maximised pane last (key_escape); Textual's own would restore it before any of them
    ESCAPE_TO_MINIMIZE = False

    # vars, not reactives: a reactive of the app repaints the whole screen when it changes
    busy: var[bool] = var(False)
    current: var[str] = var("graph")

    def __init__(self, opening: Opening, history_file: str | None = None,
                 deterministic: bool = False) -> None:
        super().__init__()
        self.register_theme(LIGHT)
        self.opening = opening
        self.access = replace(opening.access, deliver=self._deliver) \
            if opening.access.served else opening.access
        self.views = SessionViews(DebugSession(opening.base_dir, access=self.access))
        self.history_file = history_file if history_file is not None else str(history_path())
        self.deterministic = deterministic   # snapshots: no wall-clock times on screen
        self.kind: TargetKind | None = None
        self.lessons = LessonPlay(self)
        self._deferred: list[Answered] = []   # answers that came while a modal was up
        self._queue: deque[Job] = deque()
        self._job: Job | None = None
        self._quit_when_done = False
        self._panes: list[Pane] = []     # the pane widgets, found once
        self._pane_spans: list[tuple[int, int, str]] = []   # the pane bar: x from, x to, pane
        self._search = ""                       # the text / searched for, until Esc
        self._search_pane: Pane | None = None   # ... in this pane
        self._slow = None                # the timer that shows a long command as running
        self._shown_running = False      # ... and whether it has
        self.answers = 0                 # command lines answered: what a headless driver waits on
        # F10's unit when it is not the debugger's: the one it used before an F11 stepped one
        # finer once, or a coarser one chosen (u, a click on the status bar's unit)
        self.unit: str | None = None

    def get_line_filters(self):
        """Textual's filters, and the net under every line: no control character drawn raw."""
        return [*super().get_line_filters(), CONTROL_FILTER]

    @property
    def session(self) -> DebugSession:
        return self.views.session

    @property
    def lesson(self) -> Player | None:
        """The lesson playing (or stopped at its end), if any."""
        return self.lessons.player

    @property
    def lesson_paused(self) -> bool:
        return self.lessons.paused

    def _deliver(self, name: str, data: bytes) -> None:
        """A served tab's saved file, sent to its browser (from the session's worker, or from
        the app's own thread: `log save`)."""
        if threading.current_thread() is threading.main_thread():
            self.deliver_binary(io.BytesIO(data), save_filename=name)
        else:
            self.call_from_thread(self.deliver_binary, io.BytesIO(data), save_filename=name)

    # -- layout -----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Static("", id="panebar", markup=False)
        with Horizontal(id="workspace"):
            with Container(id="panes"):
                yield GraphPane()
                yield PassesPane()
                yield DevicePane()
                yield MemoryPane()
                yield TimelinePane()
                yield SourcePane()
            yield LessonPanel(id="lesson")
        yield LogPane()
        yield Static("", id="hint", markup=False)
        # a served tab keeps no history file: a student's lines are not the server's to keep
        # (and prompt_toolkit's history is ~9 MB of each tab)
        yield CommandLine(None if self.deterministic or self.access.served else self.history_file,
                          id="command")
        yield KeyBar()   # ctrl+p: in the help

    @property
    def panes(self) -> list[Pane]:
        if not self._panes:
            self._panes = list(self.query(Pane))
        return self._panes

    def pane(self, name: str) -> Pane:
        return next(p for p in self.panes if p.PANE_ID == name)

    @property
    def command_line(self) -> CommandLine:
        return self.query_one(CommandLine)

    @property
    def log_pane(self) -> LogPane:
        return self.query_one(LogPane)

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self._screen_changed)
        self.command_line.completer = session_completer(lambda: self.session,
                                                        lambda: self.busy)
        if self.deterministic:   # snapshots: a cursor caught mid-blink would differ
            for field in self.query(Input):
                field.cursor_blink = False
        self.query_one(LessonPanel).display = self.opening.lesson is not None
        self._layout_panes()
        self.watch(self.screen, "maximized", self._maximized, init=False)
        self.watch(self.screen, "focused", lambda _: self._refresh_keys(), init=False)
        if self.opening.lesson is not None:
            self.lessons.begin(self.opening.lesson, self.opening.allow_programs)
        elif self.opening.target is not None:
            self.run_line(f"target {self.opening.target}")
        self._focus_pane(self.current)
        if not self.busy:   # no answer to wait for (a lesson asks its consent first)
            self.call_after_refresh(first_screen_drawn)

    def _screen_changed(self, screen: object) -> None:
        if self.screen_stack and screen is self._panes_screen and self._deferred:
            deferred, self._deferred = self._deferred, []
            for message in deferred:
                self.on_answered(message)
            self._next()

    def on_unmount(self) -> None:
        if self.busy and self.views.debugger is not None:
            self.views.debugger.interrupt()
        self.session.close()

    # -- running commands -------------------------------------------------------------------------
    def run_line(self, line: str) -> None:
        """Queue a command line; the log shows it when it runs."""
        self._submit(Job(line=line))

    def run_lesson_step(self, player: Player) -> None:
        """Queue a lesson's next step (its first line is what the log shows)."""
        self._submit(Job(line=player.next_line(), lesson=player))

    def read_job(self, read: Callable[[SessionViews], Any], then: Callable[[Any], None]) -> None:
        """Read the parked world on the worker (never while a command runs), then ``then``."""
        self._submit(Job(read=read, then=then))

    def refresh_pane(self, pane: Pane) -> None:
        self._submit(Job(panes=[pane]))

    def _submit(self, job: Job) -> None:
        self._queue.append(job)
        if self._held(job):
            self.log_pane.note(f"{job.line}: runs when the lesson pauses")
        self._next()

    def _held(self, job: Job) -> bool:
        """A command of the user's while a lesson plays on (not at a pause) waits for it to
        park: run between the lesson's steps it would move the target under the lesson."""
        return job.line is not None and job.lesson is None and self.lessons.running

    def _next(self) -> None:
        if self.busy or not self.screen_stack:   # (a worker done as the app closes)
            return
        at = next((i for i, j in enumerate(self._queue) if not self._held(j)), None)
        if at is None:
            return
        job = self._queue[at]
        del self._queue[at]
        if job.line is not None or not job.panes:
            job.panes = self._shown_panes()
        for pane in self.panes:
            if pane not in job.panes and job.line is not None:
                pane.stale = True
        self._job = job
        self.busy = True
        if job.line is not None:
            self._slow = self.set_timer(SLOW, partial(self._running_slowly, job))
        self._work(job)

    def _running_slowly(self, job: Job) -> None:
        """A command still running after SLOW seconds: say so, and dim the keys it blocks
        (a quick step would only flicker them)."""
        if job is not self._job:   # a timer's tick queued before its job answered
            return
        self.query_one(StatusBar).activity = f"running {job.line} (ctrl+c interrupts)"
        self.log_pane.command(job.line)
        self._shown_running = True
        self._refresh_keys()

    @work(thread=True, exclusive=True, group="session")
    def _work(self, job: Job) -> None:
        outcomes: list[Outcome] = []
        result = None
        views = self.views
        data: dict[str, Any] = {}
        try:
            if job.lesson is not None:   # by the one player: its consent, its errors
                played = result = job.lesson.step(self.session, self.session.execute)
                outcomes = [*played.outcomes, *(Error(e) for e in played.errors)]
            elif job.line is not None:
                outcomes = self.session.execute(job.line)   # a bad line answers an Error
            # The views' rows, a few objects a node, are made with the collector paused: with it
            # running, their allocations set off full collections that rescan every live graph
            # and checkpoint copy (seconds at 20k nodes, most of a slow step's time). The pause
            # is this bounded stretch only, never the target's run, which may loop for ever.
            with collector_paused():
                if job.lesson is not None or job.line is not None:
                    views.attach()
                    views.answered(outcomes)
                if job.read is not None:
                    result = job.read(views)
                for pane in job.panes:
                    try:
                        data[pane.PANE_ID] = pane.read(views)
                    except Exception as exc:   # a view's bug: a line in the log, the app goes on
                        data[pane.PANE_ID] = exc
        except Exception as exc:
            outcomes.append(Error(f"internal error: {type(exc).__name__}: {exc}"))
        self.post_message(Answered(job, outcomes, result, data, views.status()))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The next job starts once the worker of the last one is done (not from the answer's
        handler: an exclusive worker would cancel the one still finishing)."""
        if event.worker.group == "session" and event.state in (
                WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self._next()

    def on_answered(self, message: Answered) -> None:
        if not self.screen_stack:   # answered as it closes
            return
        if self.screen is not self._panes_screen:
            # A modal (help, a question, the palette) is up and its widgets are not the panes:
            # the answer waits until the app's own screen is back.
            self._deferred.append(message)
            return
        if not self.screen.query(StatusBar):   # answered as it closes
            return
        job = message.job
        self._job = None
        self.busy = False
        if self._slow is not None:
            self._slow.stop()
            self._slow = None
        echoed, self._shown_running = self._shown_running, False
        status_bar = self.query_one(StatusBar)
        status_bar.activity = ""
        if job.line is not None:
            self.answers += 1
            if not echoed:
                self.log_pane.command(job.line)
            self._log(message.outcomes)
            errors = [f"error: {o.message}" for o in message.outcomes if isinstance(o, Error)]
            errors += [line for o in message.outcomes if isinstance(o, Finished)
                       for line in o.summary if line.startswith("error:")]   # the run failed
            status_bar.error = errors[-1] if errors else ""
        status_bar.status = message.status
        if message.status.kind != self.kind:
            self.kind = message.status.kind
            self._layout_panes()
            focused = self.focused
            owner = next((n for n in (focused.ancestors_with_self if focused else ())
                          if isinstance(n, Pane)), None)
            # only a focus whose pane went away moves: the command line keeps what is typed
            # in it (a `:` pressed while a lesson's first steps still ran)
            if focused is None or (owner is not None and not owner.applies(self.kind)):
                self._focus_pane(self.current)
        for pane in job.panes:
            self._show(pane, message.data.get(pane.PANE_ID))
        if job.then is not None:
            try:
                job.then(message.result)
            except Exception as exc:
                self._internal_error("view", exc)
        if self._quit_when_done:
            self.exit()
            return
        if job.lesson is not None:
            self.lessons.answered(message.result, message.outcomes)
        elif job.line is not None and (pane := shown_pane(
                [o for o in message.outcomes if isinstance(o, Show)])) is not None:
            self.bring_forward(pane, message.outcomes)   # a typed `show PANE`
        self._refresh_keys()
        if self.access.served:
            self._report(message.status, status_bar.error)
        self.call_after_refresh(first_screen_drawn)   # (once: startup.py)

    def _report(self, status: Status, error: str) -> None:
        """Where this served tab is, for the teacher's view."""
        lesson, opened = self.lesson, self.opening.lesson
        report(TabStatus(
            lesson=lesson.script.stem if lesson is not None else opened.stem if opened else "",
            step=f"{lesson.at}/{len(lesson.lines)}" if lesson is not None else "",
            last_stop=f"{status.target} tick {status.tick}"
                      + (f": {status.reason}" if status.reason else ""),
            last_error=error))

    def _refresh_keys(self) -> None:
        """The key bar dims what no longer applies (one line: cheap to redraw)."""
        self.query_one(KeyBar).refresh()

    def _show(self, pane: Pane, data: Any) -> None:
        if isinstance(data, Exception):
            self._internal_error(pane.TITLE, data)
            return
        try:
            if not pane.unchanged(data):
                pane.show(data)
                pane.shown = data
            pane.stale = False
        except Exception as exc:
            self._internal_error(pane.TITLE, exc)

    def _internal_error(self, where: str, exc: Exception) -> None:
        message = f"internal error in {where}: {type(exc).__name__}: {exc}"
        self.log_pane.note(message, style="bold red")
        self.query_one(StatusBar).error = message

    def _log(self, outcomes: list[Outcome]) -> None:
        self.log_pane.outcomes(outcomes)

    # -- lessons (lesson_play.py plays them) ----------------------------------------------------
    def action_lesson_next(self) -> None:
        if self.lesson_paused:   # (Enter on the lesson panel comes here unchecked)
            self.lessons.step()

    def action_lessons(self) -> None:
        """L: the lessons panel's list (again: the panel goes away, unless a lesson plays)."""
        panel = self.query_one(LessonPanel)
        if panel.display and panel.listing:
            panel.display = self.lessons.playing
            if panel.display:
                panel.narration()   # back to the narration
            self._focus_pane(self.current)
            return
        if self._panes_screen.maximized is not None:   # the list is not behind a pane
            self._panes_screen.minimize()
        panel.display = True
        panel.show_list(self.lesson.script if self.lesson is not None else None)

    def on_lesson_panel_chosen(self, message: LessonPanel.Chosen) -> None:
        self.play_lesson(message.path)

    def play_lesson(self, path: Path) -> None:
        """Play a lesson in a fresh session from its own directory, as `gewb run` replays it
        (a lesson sets what it needs; nothing of the session before carries over)."""
        if self.busy:
            self.notify("a command is running: ctrl+c interrupts it", severity="warning")
            return
        self._queue.clear()
        self.session.close()
        self.views = SessionViews(DebugSession(path.parent, access=self.access))
        self.log_pane.note(f"lesson {path.stem}", style="bold")
        self._focus_pane(self.current)
        self.lessons.begin(path, self.opening.allow_programs)

    def lesson_refused(self, message: str) -> None:
        self.log_pane.note(message, style="bold red")
        self.query_one(StatusBar).error = message

    # -- panes ------------------------------------------------------------------------------------
    @property
    def _panes_screen(self) -> Screen:
        """The screen the panes are on, under any modal (help, a question) over it."""
        return self.screen_stack[0]

    def _shown_panes(self) -> list[Pane]:
        maximized = self._panes_screen.maximized if self.screen_stack else None
        if isinstance(maximized, Pane):
            return [maximized, self.log_pane]
        return [p for p in self.panes if p.display and p.applies(self.kind)]

    def _layout_panes(self) -> None:
        """Which panes the target has, which one is current (on a narrow screen, the one
        shown), and the pane bar."""
        applies = [p for p in self.panes if p.applies(self.kind)]
        if self.pane(self.current) not in applies:
            self.current = "device" if self._host() else "graph"
        for p in self.panes:
            p.set_class(p not in applies, "-absent")
            p.set_class(p.PANE_ID == self.current, "-current")
        panes = self.query_one("#panes")
        host = self._host()
        panes.set_class(host, "-host")
        # side by side, a host program's source takes the first column, as the graph does
        source = self.pane("source")
        if host and panes.children[0] is not source:
            panes.move_child(source, before=0)
        elif not host and panes.children[-1] is not source:
            panes.move_child(source, after=panes.children[-1])
        self._pane_bar()

    def _host(self) -> bool:
        """A host program's target: its source takes the graph's place."""
        return self.kind is not None and self.kind.has(Capability.SOURCE)

    def _pane_bar(self) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        self._pane_spans = []
        for n, name in enumerate(keymap.PANES, 1):
            p = self.pane(name)
            style = "bold reverse" if name == self.current else (
                "dim" if not p.applies(self.kind) else "")
            start = len(text)
            text.append(f" {n} {keymap.PANE_TITLES[name]} ", style=style)
            if p.applies(self.kind):
                self._pane_spans.append((start, len(text), name))
        self.query_one("#panebar", Static).update(text, layout=False)

    @on(events.Click, "#panebar")
    def pane_bar_clicked(self, event: events.Click) -> None:
        """A click on a pane's name in the pane bar: as its number key."""
        name = next((n for start, end, n in self._pane_spans if start <= event.x < end), None)
        if name is not None:
            self.action_pane(name)

    def on_pane_title_clicked(self, message: Pane.TitleClicked) -> None:
        """A click on a pane's title maximises it (again: restores it), as its number key."""
        self.action_pane(message.pane.PANE_ID)

    def watch_current(self, name: str) -> None:
        if not self.is_mounted:
            return
        for p in self.panes:
            p.set_class(p.PANE_ID == name, "-current")
        self._pane_bar()

    def action_pane(self, name: str) -> None:
        pane = self.pane(name)
        if not pane.applies(self.kind):   # dimmed in the pane bar; its key says why, not nothing
            self.notify(f"the {keymap.PANE_TITLES[name]} pane has nothing to show for "
                        f"{self.kind.label}s", severity="warning")
            return
        narrow = self.screen.has_class("-narrow")
        if narrow and name != self.current and name != "log":
            self.screen.minimize()
            self.current = name
        elif self.screen.maximized is pane:
            self.screen.minimize()
        else:
            self.screen.maximize(pane, container=False)
            if name != "log":
                self.current = name
        self._focus_pane(name)
        if pane.stale:
            self.refresh_pane(pane)

    def bring_forward(self, name: str, outcomes: list[Outcome]) -> None:
        """The pane a lesson's output belongs on (or its `show PANE`) comes to the front: the
        one shown on a narrow screen, focused on a wide one; a diff opens in the passes pane's
        diff view. A pane the target does not have stays away."""
        pane = self.pane(name)
        if not pane.applies(self.kind):
            return
        if self._panes_screen.maximized not in (None, pane):   # a lesson plays on under help
            self._panes_screen.minimize()
        if name != "log":
            self.current = name
        if not isinstance(self.focused, (Input, OptionList)):   # not from what the user types
            self._focus_pane(name)
        if pane.stale:
            self.refresh_pane(pane)
        # text for the passes pane is a diff's (the pass table is a table): its diff view
        diffs = [o for o in outcomes if isinstance(o, Printed) and o.pane == name == "passes"]
        if diffs:
            self.query_one(PassesPane).open_diff(diffs[-1])

    def _maximized(self, widget: Widget | None) -> None:
        """A pane restored (any way: a number key, Esc): the panes back on screen that missed
        answers meanwhile read again."""
        if widget is None:
            self._read_stale()
        self._refresh_keys()

    def _read_stale(self) -> None:
        stale = [p for p in self._shown_panes() if p.stale]
        if stale:
            self._submit(Job(panes=stale))

    def _focus_pane(self, name: str) -> None:
        self.pane(name).focus_main()

    def focused_pane(self) -> Pane | None:
        node: Widget | None = self.focused
        while node is not None and not isinstance(node, Pane):
            node = node.parent if isinstance(node.parent, Widget) else None
        return node if node is not None else self.pane(self.current)

    def on_graph_pane_node_selected(self, message: GraphPane.NodeSelected) -> None:
        self.query_one(MemoryPane).select_node(message.node)

    def on_stream_grid_selected(self, message: StreamGrid.Selected) -> None:
        self.query_one(SourcePane).select_sqe(message.stream, message.pos)
        self.query_one(TimelinePane).mark_stream(message.stream)

    def on_timeline_pane_stream_picked(self, message: TimelinePane.StreamPicked) -> None:
        """A lane clicked or picked with up / down: its stream selected as in the device pane (its
        column, at its head), else (no such stream on the device now) marked in the timeline
        alone."""
        if not self.query_one(DevicePane).grid.select_stream(message.stream):
            self.query_one(TimelinePane).mark_stream(message.stream)

    # -- the command line -------------------------------------------------------------------------
    @on(Input.Submitted, "#command")
    def command_submitted(self, event: Input.Submitted) -> None:
        """Enter runs the line and leaves the command line, as in vim: `:` comes back to it
        (a `:` typed out of habit while still in it is dropped)."""
        line = event.value.strip().lstrip(":").strip()
        event.input.value = ""
        self._hint("")
        self._focus_pane(self.current)
        if not line:
            return
        self.command_line.remember(line)
        if line.startswith("/"):   # a search typed after / (action_search)
            self._search = line[1:].strip()
            self._find(1)
            return
        words = line.split()
        if words[:2] == ["log", "save"]:   # the app's own log: no other face has one
            self.save_log(" ".join(words[2:]))
            return
        if words[0] in ("step", "s", "reverse-step", "rs") and len(words) > 1:
            self._set_unit(None)   # a typed unit is the stepping unit for good, as in the REPL
        if line in QUIT:
            self.action_quit_app()
            return
        self.run_line(line)

    @property
    def searching(self) -> bool:
        """A `/` search is on (until Esc): n and N go on with it, Esc ends it first."""
        return bool(self._search)

    def action_search(self) -> None:
        """/ (the graph pane's / filters instead): search the focused pane's rows, or the log;
        Enter finds the first match, n and N the next and previous ones until Esc."""
        self._search_pane = self.focused_pane()
        self.command_line.value = "/"
        self.command_line.cursor_position = 1
        self.screen.set_focus(self.command_line)

    def action_search_next(self, step: int) -> None:
        self._find(step)

    def _find(self, step: int) -> None:
        pane = self._search_pane or self.focused_pane()
        if pane is None or not self._search:
            return
        pane.focus_main()
        if not pane.find(self._search, step):
            self.no_match(self._search, pane.TITLE.split()[-1])

    def no_match(self, text: str, where: str) -> None:
        """Said in the log and the status bar, as an error is: a toast goes unread."""
        message = f"no match for {text} in {where}"
        self.log_pane.note(message, style="bold yellow")
        self.query_one(StatusBar).error = message

    def searched(self, pane: Pane, text: str) -> None:
        """A pane's own search box found ``text`` (the graph's filter): n and N go on in it."""
        self._search, self._search_pane = text, pane

    def save_log(self, name: str) -> None:
        """`log save FILE`: the log's lines as text, FILE relative to the session's directory
        (its missing folders made), as `export` and `save-script` write."""
        if not name:
            self.log_pane.note("usage: log save FILE", style="bold red")
            return
        lines = [line.text for line in self.log_pane.text_log.lines]
        try:   # where the session writes its other files: a served tab's to its browser
            self.session.save(name, {Path(name).name: "\n".join(lines) + "\n"}, "log save")
        except ValueError as exc:   # OutputPathError, AccessRefused: they name the path
            self.log_pane.note(f"error: {exc}", style="bold red")
            return
        self.log_pane.note(f"log saved to {name} ({len(lines)} lines)")

    def action_copy(self) -> None:
        """y: copy the text selected with the mouse, else the row under the cursor, to the
        clipboard (OSC 52: through ssh and textual-serve too)."""
        text = self.screen.get_selected_text() or ""
        if not text:
            pane = self.focused_pane()
            table = next(iter(pane.query(TreeTable)), None) if pane is not None else None
            key = table.cursor_key if table is not None else None
            line = table.line(key) if key else None
            text = "  ".join(c for c in line.cells if c) if line is not None else ""
        if text:
            self.copy_to_clipboard(text)
            self.notify(f"copied {len(text)} characters")

    def on_command_line_hint(self, message: CommandLine.Hint) -> None:
        self._hint(message.text)

    def _hint(self, text: str) -> None:
        hint = self.query_one("#hint", Static)
        hint.update(text)
        hint.display = bool(text)

    def prefill_command(self, name: str) -> None:
        self.command_line.value = name + " "
        self.command_line.cursor_position = len(self.command_line.value)
        self.screen.set_focus(self.command_line)

    def action_focus_command(self) -> None:
        # now, not at the next turn (Widget.focus): what is typed right after the `:` (a paste,
        # a quick typist) must reach the command line, not the letter keys s, n, c, b, q
        self.screen.set_focus(self.command_line)

    def key_escape(self) -> None:
        if self._search:   # n and N are gdb's next again; the match's mark goes
            self._search = ""
            for pane in self.panes:
                pane.end_search()
            if self.focused is not self.command_line:   # that Esc did one thing
                return
        if self.focused is self.command_line:   # as in vim: Esc drops the line and leaves
            self.command_line.value = ""
            self._hint("")
            self._focus_pane(self.current)
        elif self.screen.maximized is not None:
            self.screen.minimize()

    # -- debugger keys ----------------------------------------------------------------------------
    def action_debug(self, what: str) -> None:
        self.run_line(keymap.COMMAND_KEYS[what])

    def action_step(self) -> None:
        d = self.views.debugger
        unit = self._set_unit(None)
        self.run_line(f"step {unit}" if unit and d is not None and unit != d.granularity
                      else "step")

    def action_step_finer(self) -> None:
        """F11: step into, once: one unit finer than F10's, which stays what it was."""
        base = self._f10_unit()
        self._set_unit(base)
        self.run_line(f"step {keymap.FINER.get(base, 'event')}")

    def action_step_coarser(self) -> None:
        """u (or a click on the status bar's unit): F10 steps one unit coarser from now."""
        base = self._f10_unit()
        coarser = keymap.coarser(base, self.query_one(StatusBar).status.phase)
        self._set_unit(coarser)
        self.log_pane.note(f"F10 steps a {coarser} now (F11 one unit finer, once)")

    def _f10_unit(self) -> str:
        d = self.views.debugger
        return self.unit or (d.granularity if d is not None else "pass")

    def _set_unit(self, unit: str | None) -> str | None:
        """F10's unit (None: the debugger's own); the status bar shows it. The one before."""
        before, self.unit = self.unit, unit
        self.query_one(StatusBar).unit = unit or ""
        return before

    def on_status_bar_unit_clicked(self) -> None:
        self.action_step_coarser()

    def action_toggle_breakpoint(self) -> None:
        pane = self.focused_pane()
        spec = pane.breakpoint_spec() if pane is not None else None
        d = self.views.debugger
        if d is None:
            return
        if spec is None:   # the cursor on a stage, a graph, an empty column: say why not
            self.log_pane.note("F9: nothing here to break on (put the cursor on a pass, a "
                               "node or an SQE)")
            return
        same = [bp.id for bp in d.breakpoints.values() if bp.text == spec]
        self.run_line(f"delete {same[0]}" if same else f"break {spec}")

    def action_interrupt(self) -> None:
        d = self.views.debugger
        if self.busy and d is not None:
            d.interrupt()
            self.log_pane.note("interrupt: the target parks at its next event")

    def action_quit_app(self) -> None:
        if not self.busy:
            self.exit()
            return

        def answered(quit_now: bool | None) -> None:
            if quit_now:
                self._quit_when_done = True
                self._queue.clear()
                self.action_interrupt()
        self.push_screen(quit_question(), answered)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Dim the keys that do nothing now (None); hide none. While a command runs they queue
        behind it (dimmed once it runs long)."""
        d = self.views.debugger
        if action in ("debug", "step", "step_finer"):
            if d is None or self._shown_running:
                return None
            if parameters and parameters[0] == "reverse":
                return True if d.run.started else None
            return None if d.run.finished else True
        if action == "interrupt":   # live as soon as a command runs (the footer shows it
            return True if self.busy else None   # once the command has run SLOW seconds)
        if action == "toggle_breakpoint":
            pane = self.focused_pane() if self.is_mounted else None
            return True if d is not None and pane is not None and pane.BREAKS else None
        if action == "search_next":   # n and N after a search; else n is gdb's next
            return self.searching
        if action in ("search", "focus_command") and self.is_mounted and \
                self.screen is not self._panes_screen:
            return False   # a dialog or the help is up: its keys are its own
        if action == "search":   # the graph pane's / is its filter (its own binding)
            return not isinstance(self.focused, Input) and not isinstance(
                self.focused_pane() if self.is_mounted else None, GraphPane)
        if action == "focus_command":   # a `:` typed in an input is the input's
            return False if isinstance(self.focused, Input) else True
        if action == "lesson_next":   # space in an input is the input's
            return True if self.lesson_paused and not isinstance(self.focused, Input) else False
        return True

