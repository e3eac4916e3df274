"""Pane 5, the timeline: a text Gantt of emulated time, one lane per stream and one per unit
(a digit: how many of that unit are busy), with the event record → wait links summarised.
+ / - zoom, [ / ] scroll, 0 fits the whole run. A click on a stream's lane, or up / down to the
stream lane above or below, selects that stream (the device pane's column, the source pane's
line), and the stream selected there is marked here."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.message import Message

from workbench.debugger.views.timeline_lanes import Lane, end_ns, lanes, links
from npu_emu.timeline import Timeline
from workbench.tui.pane import Pane
from workbench.tui.text_lines import TextLines
from workbench.tui.session_views import SessionViews

NAME = 12


@dataclass(eq=False)
class TimelineData:
    timeline: Timeline   # a copy: the run goes on appending to its own
    logical: dict[int, int] = field(default_factory=dict)   # rt stream -> GE's: their names
    cores: dict[int, int] = field(default_factory=dict)     # unit -> how many there are
    streams: dict[int, str] = field(default_factory=dict)   # rt stream -> a program's name
    events: dict[int, str] = field(default_factory=dict)    # event -> ...

    def __eq__(self, other: object) -> bool:   # slices are only ever appended
        return isinstance(other, TimelineData) and \
            len(self.timeline.slices) == len(other.timeline.slices) and \
            len(self.timeline.flows) == len(other.timeline.flows)


class LaneText(TextLines, can_focus=True):
    """The lanes, focused for the pane's keys: up / down pick the stream lane above or below
    (the unit lanes are skipped), as left / right pick a stream column in the device pane."""

    BINDINGS = [Binding("up", "pick(-1)", "Stream above", show=False,
                        id="timeline-stream-above"),
                Binding("down", "pick(1)", "Stream below", show=False,
                        id="timeline-stream-below")]

    def action_pick(self, step: int) -> None:
        pane = self.parent.parent if isinstance(self.parent, VerticalScroll) else None
        if isinstance(pane, TimelinePane):
            pane.pick_lane(step)


class TimelinePane(Pane):
    PANE_ID = "timeline"
    TITLE = "5 Timeline"
    BINDINGS = [Binding("plus,equals_sign", "zoom(0.5)", "Zoom in", show=False,
                        id="timeline-zoom-in"),
                Binding("minus", "zoom(2)", "Zoom out", show=False, id="timeline-zoom-out"),
                Binding("left_square_bracket", "scroll_time(-1)", "Earlier", show=False),
                Binding("right_square_bracket", "scroll_time(1)", "Later", show=False),
                Binding("0", "fit", "Fit", show=False)]

    class StreamPicked(Message):
        """A click on the lane of rt stream ``stream``, or up / down to it: the app selects
        it."""
        def __init__(self, stream: int) -> None:
            super().__init__()
            self.stream = stream

    def __init__(self) -> None:
        super().__init__()
        self.data: TimelineData | None = None
        self.start = 0
        self.span: int | None = None   # None: fit the whole run
        self.stream: int | None = None   # the rt stream selected (its lane marked)
        self._shown: list[Lane] = []     # the lanes drawn, from the text's second line

    def compose(self) -> ComposeResult:
        with VerticalScroll(can_focus=False):   # the keys go to the lanes
            yield LaneText(id="timeline-text")

    def on_mount(self) -> None:   # (Pane's runs too: Textual calls each class's handler)
        # its words from the start, and the line's layout with them: a screen drawn before
        # its first size or read showed the pane blank
        self.redraw()

    def read(self, views: SessionViews) -> TimelineData:
        tl = views.lanes.timeline if views.debugger is not None and \
            views.lanes.current(views.debugger) else Timeline()
        copy = Timeline()
        copy.slices, copy.flows = list(tl.slices), list(tl.flows)
        d = views.debugger
        if d is None:
            return TimelineData(copy, cores=views.lanes.cores())
        names = d.handle_names()
        return TimelineData(copy, dict(d.run.tracker.bound), views.lanes.cores(),
                            dict(names.streams), dict(names.events))

    def show(self, data: TimelineData | None) -> None:
        if data is not None:
            self.data = data
        self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    def on_click(self, event: events.Click) -> None:
        text = self.query_one("#timeline-text", TextLines)
        if not text.region.contains(event.screen_x, event.screen_y):
            return
        n = event.screen_y - text.region.y - 1   # the first line is the time scale
        if 0 <= n < len(self._shown) and self._shown[n].stream is not None:
            self.post_message(self.StreamPicked(self._shown[n].stream))

    def pick_lane(self, step: int) -> None:
        """The stream lane ``step`` lanes of streams below the marked one (above: -1); the
        first one if none is marked."""
        streams = [lane.stream for lane in self._shown if lane.stream is not None]
        if not streams:
            return
        if self.stream in streams:
            at = max(0, min(streams.index(self.stream) + step, len(streams) - 1))
        else:
            at = 0 if step > 0 else len(streams) - 1
        self.post_message(self.StreamPicked(streams[at]))

    def mark_stream(self, stream: int | None) -> None:
        """The stream selected (here or in the device pane): its lane marked and in view."""
        if stream != self.stream:
            self.stream = stream
            self.redraw()
        at = next((i for i, lane in enumerate(self._shown) if lane.stream == stream), None)
        if at is not None:   # the first line is the time scale
            self.query_one(VerticalScroll).scroll_to_region(
                Region(0, 1 + at, 1, 1), animate=False, immediate=True)

    def action_zoom(self, factor: float) -> None:
        total = end_ns(self.data.timeline) if self.data else 0
        span = self.span or max(total, 1)
        self.span = max(int(span * factor), 100)
        self.redraw()

    def action_scroll_time(self, direction: int) -> None:
        total = end_ns(self.data.timeline) if self.data else 0
        span = self.span or max(total, 1)
        self.start = max(0, min(self.start + direction * span // 4, max(total - span // 2, 0)))
        self.redraw()

    def action_fit(self) -> None:
        self.start, self.span = 0, None
        self.redraw()

    def find(self, text: str, step: int = 1) -> bool:
        return self.query_one("#timeline-text", TextLines).find(text, step)

    def end_search(self) -> None:
        self.query_one("#timeline-text", TextLines).end_search()

    def window(self) -> tuple[int, int]:
        """The emulated time shown, [start, end) ns."""
        total = end_ns(self.data.timeline) if self.data else 0
        span = self.span or max(total, 1)
        return self.start, self.start + span

    def _width(self) -> int:
        return max(self.size.width - NAME - 18, 10)

    def current_lanes(self) -> list[Lane]:
        tl = self.data.timeline if self.data else None
        if tl is None or not tl.slices:
            return []
        return lanes(tl, *self.window(), self._width(), self.data.logical, self.data.cores,
                     NAME, self.data.streams)

    def redraw(self) -> None:
        text = self.query_one("#timeline-text", TextLines)
        shown = self._shown = self.current_lanes()
        if not shown:
            text.set_lines([[("no SQE has run on the device yet", "")]])
            return
        start, end = self.window()
        width = self._width()
        head = f"{'':{NAME}} {start} ns".ljust(NAME + 1 + width - len(f"{end} ns"))
        lines = [[(head + f"{end} ns    SQEs busy", "bold")]]
        for lane in shown:
            picked = lane.stream is not None and lane.stream == self.stream
            line = [(f"{lane.name[:NAME]:{NAME}}", "reverse" if picked else ""), (" ", "")]
            for ch, run in groupby(lane.cells):   # one run per stretch, not per column
                line.append(("".join(run), "dim" if ch == "." else "green" if ch == "#"
                             else "cyan"))
            line.append((f" {lane.sqes:>5} {lane.busy_percent(start, end):>3}%", ""))
            lines.append(line)
        found = links(self.data.timeline, self.data.logical, self.data.streams,
                      self.data.events)
        if found:
            lines += [[("", "")], [("event links (record -> wait):", "bold")]]
            lines += [[(f"  {link}", "")] for link in found[:20]]
            if len(found) > 20:
                lines.append([(f"  ... {len(found) - 20} more", "dim")])
        text.set_lines(lines)
