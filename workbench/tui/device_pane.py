"""Pane 3, the device: one column per stream with its SQ window around the head (the SQE about
to execute marked ▶), head and tail and its state in words; under them the events, notifies,
labels, models and units; above them, in red, a deadlock's wait-for chain, a race's two
accesses and the faults found. Arrow keys or a click select an SQE (F9 breaks on it; the source
pane shows the line that submitted it, the timeline marks its stream's lane)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from ge_core.events import TaskDistributed
from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.events import (EventRecorded, EventWaitBlocked, EventWaitSatisfied,
                                      HostSynchronized, NotifyRecorded, NotifyWaitBlocked,
                                      NotifyWaitSatisfied)
from workbench.commands.render import render
from workbench.debugger.outcomes import Outcome, TableOutcome
from workbench.debugger.stream_names import named_stream, stream_label
from workbench.debugger.views import device_views
from workbench.debugger.views.device_state import (DONE, NEXT, RUNNING, StreamColumn, UnitUse,
                                                   busy_units, faults, node_of_task, races,
                                                   stream_columns, wait_for_chain)
from workbench.tui.pane import Pane, redraw
from workbench.tui.search import next_match
from workbench.tui.session_views import SessionViews
from workbench.tui.text_lines import TextLines

COLUMN_WIDTH = 30
ENDED = "no device now: the run has finished (F8 steps back into it)"
MARKS = {NEXT: "▶", RUNNING: "●", DONE: " "}
HEADS = 3   # lines atop each stream column: its name, its state, head and tail


@dataclass
class DeviceData:
    columns: list[StreamColumn] = field(default_factory=list)
    tables: list[Outcome] = field(default_factory=list)
    units: list[UnitUse] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    races: list[tuple[str, str, str]] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    note: str = ""
    logical: dict[int, int] = field(default_factory=dict)   # rt stream -> GE's, to name them
    stop: tuple[int, int, int | None] | None = None   # a stop on a stream: (tick, rt
    # stream, the SQE's position if the stop is an SQE's)


class StreamGrid(TextLines, can_focus=True):
    """The stream columns, side by side, in fixed-width columns; a cursor on one SQE of one
    column."""

    DEFAULT_CSS = "StreamGrid { height: auto; width: auto; }"
    BINDINGS = [Binding("left", "move(-1, 0)", show=False),
                Binding("right", "move(1, 0)", show=False),
                Binding("up", "move(0, -1)", show=False),
                Binding("down", "move(0, 1)", show=False)]

    class Selected(Message):
        def __init__(self, stream: int | None, pos: int | None, task_type: str | None) -> None:
            super().__init__()
            self.stream, self.pos, self.task_type = stream, pos, task_type

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.columns: list[StreamColumn] = []
        self.col = 0
        self.row: int | None = None   # None: follow the head
        self.empty = "no streams yet"   # what shows without columns
        self.logical: dict[int, int] = {}   # rt stream -> GE's logical stream: their names
        self.wanted: int | None = None   # a stream picked elsewhere while this had no column
        self._stop: tuple[int, int, int | None] | None = None   # the last stop on a stream

    def set_columns(self, columns: list[StreamColumn],
                    stop: tuple[int, int, int | None] | None = None) -> None:
        """New columns. ``stop`` (tick, rt stream, SQE position or None): where the target
        stopped, if on a stream; a new stop selects that stream's column (that SQE), in view,
        as a debugger shows the frame it stopped in (a column picked by hand stays until the
        next stop)."""
        before = self.stream
        self.columns = columns
        self.col = min(self.col, max(len(columns) - 1, 0))
        if columns and not columns[self.col].window:   # start on a stream that has SQEs
            self.col = next((i for i, c in enumerate(columns) if c.window), self.col)
        width = max(len(columns), 1) * (COLUMN_WIDTH + 1)
        if self.styles.width is None or self.styles.width.value != width:
            self.styles.width = width
        wanted, self.wanted = self.wanted, None   # tried once: the next columns read
        pos = None
        if wanted is None and stop is not None and stop != self._stop:
            _, wanted, pos = stop
        self._stop = stop
        if wanted is not None and self.select_stream(wanted, pos):
            return
        self.wanted = None
        if columns and self.stream != before:   # a column picked for the user: in view
            self._picked(scroll=True)
        else:
            self._draw()

    def on_focus(self) -> None:
        self._draw()
        # focus by Tab or a click scrolls the grid's centre into view (Screen.set_focus),
        # which for three streams or more is some other column than the selected one
        self.call_after_refresh(self.scroll_to_column)

    def on_blur(self) -> None:
        self._draw()

    def selected(self) -> tuple[StreamColumn, int] | None:
        if not self.columns:
            return None
        column = self.columns[self.col]
        if not column.window:
            return None
        row = self.row if self.row is not None else next(
            (i for i, e in enumerate(column.window) if e.mark in (NEXT, RUNNING)), 0)
        return column, min(row, len(column.window) - 1)

    def action_move(self, dx: int, dy: int) -> None:
        if not self.columns:
            return
        if dx:
            self.col = max(0, min(self.col + dx, len(self.columns) - 1))
            self.row = None
        current = self.selected()
        if dy and current is not None:
            self.row = max(0, min(current[1] + dy, len(current[0].window) - 1))
        self._picked(scroll=bool(dx))

    def on_click(self, event: events.Click) -> None:
        """A click on a stream's column selects it, on one of its SQEs that SQE, as the
        arrow keys do."""
        col = event.x // (COLUMN_WIDTH + 1)
        if not 0 <= col < len(self.columns):
            return
        row = event.y - HEADS
        self.col = col
        self.row = row if 0 <= row < len(self.columns[col].window) else None
        self.screen.set_focus(self)
        self._picked(scroll=False)

    def select_stream(self, stream: int, pos: int | None = None) -> bool:
        """Select rt stream ``stream``'s column (at its SQE ``pos`` if shown, else at its
        head), scrolled into view; False if the device has no such stream now (it is, once
        it shows one)."""
        col = next((i for i, c in enumerate(self.columns) if c.stream == stream), None)
        if col is None:   # hidden, or not read yet: selected when its columns come
            self.wanted = stream
            return False
        self.col = col
        self.row = next((i for i, e in enumerate(self.columns[col].window) if e.pos == pos),
                        None) if pos is not None else None
        self._picked(scroll=True)
        return True

    def scroll_to_column(self, tries: int = 3) -> None:
        """The selected column whole in view, at the left edge if it was not, or if the view
        starts inside a column (the view holds whole columns only: StreamsView). Not laid
        out yet (the pane just brought forward, the columns just widened): once it is."""
        scroll = self.parent
        if not isinstance(scroll, Widget):
            return
        x = self.col * (COLUMN_WIDTH + 1)
        if not scroll.size.width or scroll.virtual_size.width < x + COLUMN_WIDTH:
            if tries:
                self.call_after_refresh(self.scroll_to_column, tries - 1)
            return
        left = scroll.scroll_x
        if left % (COLUMN_WIDTH + 1) or not left <= x <= left + scroll.size.width - COLUMN_WIDTH:
            scroll.scroll_to(x=x, animate=False, immediate=True)

    @property
    def stream(self) -> int | None:
        """The rt stream selected."""
        return self.columns[self.col].stream if self.columns else None

    def _picked(self, scroll: bool) -> None:
        """The selection moved: drawn, its column in view (a narrow screen), and said."""
        self._draw()
        if scroll:
            self.scroll_to_column()
        picked = self.selected()
        if picked is None:
            self.post_message(self.Selected(self.columns[self.col].stream, None, None))
        else:
            entry = picked[0].window[picked[1]]
            self.post_message(self.Selected(picked[0].stream, entry.pos, entry.task_type))

    def find(self, text: str, step: int = 1) -> bool:
        """Stream by stream, top to bottom: the next stream head or SQE whose text holds
        ``text``, marked; an SQE found is selected too (F9 breaks on it, the source pane
        shows its line)."""
        width, texts = COLUMN_WIDTH + 1, self.texts
        rows = len(texts)
        cells = [texts[r][c * width:(c + 1) * width] for c in range(len(self.columns))
                 for r in range(rows)]
        at = None
        if self.match is not None and self.search == text.lower():
            c, start = divmod(self.match[1], width)
            at = (c * rows + self.match[0], start)
        found = next_match(cells, text, at, step)
        if found is None:
            self.show_match(text, None)
            return False
        c, r = divmod(found[0], rows)
        if r >= HEADS and r - HEADS < len(self.columns[c].window):
            self.col, self.row = c, r - HEADS
            self._draw()
            entry = self.columns[c].window[self.row]
            self.post_message(self.Selected(self.columns[c].stream, entry.pos, entry.task_type))
        self.show_match(text, (r, c * width + found[1], c * width + found[2]))
        return True

    def _draw(self) -> None:
        if not self.columns:   # the pane's note says why when the run has ended
            self.set_lines([[(self.empty, "dim")]] if self.empty else [])
            return
        picked = self.selected() if self.has_focus else None
        heads = [[(named_stream(c.stream, self.logical, {c.stream: c.name})
                   + (f" {c.model}" if c.model else ""), "bold"),
                  (c.state, _state_style(c.state)),
                  (f"head {c.head} tail {c.tail} ({c.queue})", "dim")] for c in self.columns]
        rows = max((len(c.window) for c in self.columns), default=0)
        lines = []
        for r in range(len(heads[0]) + rows):
            line: list[tuple[str, str]] = []
            for i, c in enumerate(self.columns):
                if r < len(heads[i]):
                    text, style = heads[i][r]
                elif r - len(heads[i]) < len(c.window):
                    e = c.window[r - len(heads[i])]
                    text = f"{MARKS.get(e.mark, ' ')}{e.pos:>4} {e.name}" + \
                        (f" %{e.node}" if e.node else "")
                    style = "dim" if e.mark == DONE else \
                        "bold green" if e.mark in (NEXT, RUNNING) else ""
                    if picked is not None and picked[0] is c and picked[1] == r - len(heads[i]):
                        style = (style + " reverse").strip()
                else:
                    text, style = "", ""
                cell = text if len(text) <= COLUMN_WIDTH else text[:COLUMN_WIDTH - 1] + "…"
                line += [(cell.ljust(COLUMN_WIDTH), style), (" ", "")]
            lines.append(line)
        self.set_lines(lines)


class StreamsView(HorizontalScroll):
    """The stream columns' view, as wide as the whole columns that fit (app.tcss: width auto):
    at 80 columns two, and no sliver of a third (scrolled to the last stream, the one before
    it showed cut in two). At each change of its width it scrolls to a column's edge, and so
    does every move: a column is in view whole or not at all."""

    def get_content_width(self, container: Size, viewport: Size) -> int:
        step = COLUMN_WIDTH + 1
        columns = len(self.query_one(StreamGrid).columns)
        shown = max(min(columns, (container.width + 1) // step), 1)
        return max(min(shown * step, container.width), 1)

    def on_resize(self) -> None:
        self.query_one(StreamGrid).scroll_to_column()
        pane = next((a for a in self.ancestors if isinstance(a, DevicePane)), None)
        if pane is not None:   # how many streams are off screen: read at this width
            pane.more_streams()


# the task scheduler's events that name a runtime stream by stream_id
_ON_A_STREAM = (EventRecorded, EventWaitBlocked, EventWaitSatisfied, NotifyRecorded,
                NotifyWaitBlocked, NotifyWaitSatisfied, HostSynchronized)


def stopped_at(event: TraceEvent | None) -> tuple[int, int | None] | None:
    """The rt stream the target stopped on, and the SQE's position when the stop is an
    SQE's: a distributed task's stream, an SQE's, a wait's or a record's; None for a stop on
    no stream (a pass, a node, a host line)."""
    if isinstance(event, TaskDistributed):
        return event.rt_stream_id, None
    if isinstance(event, _ON_A_STREAM):
        return event.stream_id, None
    task = getattr(event, "task", None)
    stream = getattr(task, "stream", None)
    return (stream.id, task.pos) if stream is not None else None


def _state_style(state: str) -> str:
    if state.startswith(("blocked", "waiting")):
        return "bold red"
    if state.startswith("running"):
        return "bold green"
    return "yellow" if state.startswith("ready") else "dim"


def _tables(outcomes: list[Outcome]) -> Text:
    """The event, notify, label and model tables as the REPL prints them."""
    out = Text(no_wrap=True)
    for o in outcomes:
        lines = render(o)
        if isinstance(o, TableOutcome):
            out.append(lines[0] + "\n", style="bold")
            out.append(lines[1] + "\n", style="dim")
            out.append("".join(line + "\n" for line in lines[2:]))
        else:
            out.append("\n".join(lines) + "\n", style="dim")
    out.rstrip()
    return out


class DevicePane(Pane):
    PANE_ID = "device"
    BREAKS = True
    TITLE = "3 Device"

    def compose(self) -> ComposeResult:
        yield Static("", id="device-note", markup=False)
        yield Static("", id="device-faults", markup=False)
        yield Static("", id="device-more", markup=False)
        with StreamsView(id="device-streams"):
            yield StreamGrid(id="stream-grid")
        with VerticalScroll(id="device-tables"):
            yield Static("", id="device-units", markup=False)
            yield Static("", id="device-sync", markup=False)

    def __init__(self) -> None:
        super().__init__()
        self.data = DeviceData()

    def focus_main(self) -> None:
        self.screen.set_focus(self.grid, scroll_visible=False)   # its selected stream: in view

    def find(self, text: str, step: int = 1) -> bool:
        return self.grid.find(text, step)

    def end_search(self) -> None:
        self.grid.end_search()

    @property
    def grid(self) -> StreamGrid:
        return self.query_one(StreamGrid)

    def read(self, views: SessionViews) -> DeviceData:
        d = views.debugger
        if d is None:
            return DeviceData(note="no target")
        rt = d.run.world.runtime
        note = ""
        event = d.run.parked_at
        if event is not None and event.kind == TaskDistributed.__name__:
            note = (f"distributing {event.task_type} of %{event.node} to stream "
                    f"{stream_label(event.rt_stream_id, {event.rt_stream_id: event.stream_id})} "
                    f"(model {event.model_id}, task {event.index})")
        names = d.handle_names()   # a host program's streams and events by its variables
        live_faults = faults(rt, d.state, names)
        if not rt.devices:   # none yet, or none left: a host program's end resets its device
            return DeviceData(note=note or (ENDED if d.run.finished
                                            else device_views.NO_DEVICE),
                              faults=live_faults)
        bound = dict(d.run.tracker.bound)
        tables = [device_views.events(rt, bound, names.events, names.streams),
                  device_views.notifies(rt, bound, names.streams),
                  device_views.labels(rt, bound), device_views.models(rt, bound)]
        nodes = {**views.task_nodes.nodes, **node_of_task(d.state)} \
            if views.task_nodes.current(d) else node_of_task(d.state)
        columns = [replace(c, name=names.stream(c.stream)) for c in stream_columns(rt, nodes)]
        at = stopped_at(event)
        return DeviceData(columns, tables, busy_units(rt, bound, names.streams),
                          [names.text(line) for line in wait_for_chain(rt, bound)],
                          [(names.text(a), names.text(b), where) for a, b, where in races(rt)],
                          live_faults, note, bound, (d.tick, *at) if at is not None else None)

    def show(self, data: DeviceData | None) -> None:
        if data is None:
            return
        self.data = data
        note = self.query_one("#device-note", Static)
        redraw(note, Text(data.note, style="italic"), data.note, bool(data.note))
        note.display = bool(data.note)
        self._trouble()
        self.grid.empty = "" if data.note else "no streams yet"
        self.grid.logical = data.logical
        before = len(self.grid.columns)
        self.grid.set_columns(data.columns, data.stop)
        if len(data.columns) != before:   # the view's width: as many whole columns as fit
            self.query_one(StreamsView).refresh(layout=True)
        self.more_streams()
        units = Text("units: ", style="bold")
        for u in data.units:
            units.append(f"{u.unit} {len(u.busy)}/{u.total}  ", style="" if u.busy else "dim")
        busy = [b for u in data.units for b in u.busy]
        if busy:
            units.append("\nbusy with: " + ", ".join(busy))
        redraw(self.query_one("#device-units", Static), units if data.units else "",
               units.plain, units.plain.count("\n"))
        redraw(self.query_one("#device-sync", Static), _tables(data.tables), data.tables,
               tuple(len(getattr(t, "rows", ())) for t in data.tables))

    def _trouble(self) -> None:
        """The wait-for chain, races and faults in red; on a short pane (80x24) folded to a
        few lines so the SQE lists stay in sight (maximised, 3, it unfolds)."""
        data = self.data
        lines: list[tuple[str, str]] = []
        if data.chain:
            lines.append(("wait-for chain:", "bold red"))
            lines += [(f"  {link}", "red") for link in data.chain]
        for first, second, where in data.races:
            lines += [(f"race on {where}:", "bold red"), (f"  {first}", "red"),
                      (f"  {second}", "red")]
        lines += [(f"fault: {f}", "red") for f in data.faults]
        room = max(self.size.height // 3, 3) if self.screen.maximized is not self else 60
        # rows on screen, not lines: a long chain link wraps to two or three; short of room,
        # a line a row, cut at the pane's edge, and the lines past the room folded
        width = max(self.size.width - 4, 10)   # the border and the padding
        wrap = sum(max(len(Text(text).wrap(self.app.console, width)), 1)
                   for text, _ in lines) <= room
        if len(lines) > room:
            hidden = len(lines) - room + 1
            lines = lines[:room - 1] + [(f"  … {hidden} more lines (3 maximises the pane)",
                                         "italic red")]
        trouble = Text("\n".join(text for text, _ in lines))
        start = 0
        for text, style in lines:
            trouble.stylize(style, start, start + len(text))
            start += len(text) + 1
        faults_box = self.query_one("#device-faults", Static)
        faults_box.set_class(not wrap, "-cut")   # (app.tcss: no wrapping, an ellipsis)
        redraw(faults_box, trouble, (trouble.plain, wrap), (len(lines), wrap))
        faults_box.display = bool(lines)

    def on_mount(self) -> None:   # (Pane's runs too: Textual calls each class's handler)
        self.watch(self.query_one("#device-streams"), "scroll_x",
                   lambda _: self.more_streams(), init=False)

    def more_streams(self) -> None:
        """`+N more streams →` while columns are off screen to the right, `← +N more streams`
        to the left."""
        scroll = self.query_one("#device-streams")
        step = COLUMN_WIDTH + 1
        shown = max(scroll.size.width // step, 1) if scroll.size.width else len(self.data.columns)
        first = -(-int(scroll.scroll_x) // step)   # a column cut on the left is off screen
        more = max(len(self.data.columns) - first - shown, 0)
        streams = f"stream{'s' if (first or more) > 1 else ''}"
        text = (f"← +{first} more {streams} · +{more} more →" if first and more else
                f"← +{first} more {streams} (left arrow)" if first else
                f"+{more} more {streams} → (right arrow)" if more else "")
        hint = self.query_one("#device-more", Static)
        redraw(hint, Text(text, style="italic"), text, bool(text))
        hint.display = bool(text)

    def on_resize(self) -> None:
        self._trouble()
        self.grid.scroll_to_column()   # laid out at last (brought forward): the stream in view
        self.more_streams()

    def on_stream_grid_selected(self, message: StreamGrid.Selected) -> None:
        self.more_streams()   # the grid scrolled to the selected column

    def breakpoint_spec(self) -> str | None:
        picked = self.grid.selected()
        if picked is None:
            return None
        column, row = picked
        entry = column.window[row]
        return f"sqe type={entry.task_type} rt_stream={column.stream} if pos == {entry.pos}"
