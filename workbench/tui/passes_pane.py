"""Pane 2, the passes: the pipeline as a tree (stage → pass) with what each pass did (changed,
node delta, time) and where the target is now; `h` hides the passes that changed nothing.
Enter on a pass shows its IR diff, before → after, in colour (diff_view): side by side when the
pane is wide enough; it follows the target to its newest pass, Esc closes it."""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ge_core.passes import not_ge
from npu_emu.base.counted import counted
from workbench.debugger.outcomes import Error, Outcome, Printed
from workbench.debugger.targets.target_kind import Capability
from workbench.debugger.views.pass_tree import PassSpan, StageSpan, pass_tree, span_diff
from workbench.tui.pane import Pane
from workbench.tui.session_views import SessionViews
from workbench.tui.diff_view import coloured_diff, diff_lines
from workbench.tui.search import Match, next_match, still_there
from workbench.tui.tree_table import Column, TableLine, TreeTable


@dataclass
class PassesData:
    stages: list[StageSpan]
    tick: int


class PassesPane(Pane):
    PANE_ID = "passes"
    BREAKS = True
    TITLE = "2 Passes"
    NEEDS = Capability.GRAPH
    BINDINGS = [Binding("h", "hide_unchanged", "Hide unchanged", show=False,
                        id="passes-hide"),
                Binding("escape", "close_diff", "Close the diff", show=False, id="passes-close")]

    def __init__(self) -> None:
        super().__init__()
        self.hide_unchanged = False
        self.spans: dict[str, PassSpan] = {}
        self._data: PassesData | None = None
        self._diff_of: str | None = None   # the pass whose diff is open
        self.diff: Outcome | None = None
        self.search = ""                  # the text `/` found last in the open diff
        self.match: Match | None = None   # ... where (a line of diff_lines)

    def compose(self) -> ComposeResult:
        yield Static("", id="passes-summary", markup=False)
        yield TreeTable([Column("pass", 16, 44, name=True), Column("graph", 5, 28),
                         Column("changed", 7, 7), Column("nodes", 5, 6), Column("ms", 4, 8)],
                        id="passes-table")
        with VerticalScroll(id="passes-diff"):
            yield Static("", id="passes-diff-text", markup=False)

    @property
    def table(self) -> TreeTable:
        return self.query_one(TreeTable)

    def read(self, views: SessionViews) -> PassesData | None:
        d = views.debugger
        if d is None:
            return None
        return PassesData(pass_tree(views.spans, d.tick), d.tick)

    def show(self, data: PassesData | None) -> None:
        if data is None:
            return
        self._data = data
        hidden = self.hide_unchanged
        timed = not getattr(self.app, "deterministic", False)
        lines, current, self.spans = [], None, {}
        n = 0
        for stage in data.stages:
            group = f"stage:{stage.begin}"
            running = stage.end is None
            kept = [p for p in stage.passes if not hidden or p.changed or p.end is None]
            changed = sum(p.changed for p in stage.passes)
            passes = counted(len(stage.passes), "pass", "passes")
            title = (f"{stage.name}  ({passes}, {changed} changed"
                     + (", running" if running else "") + ")")
            lines.append(TableLine(group, (title,), group=True,
                                   tone="current" if running and not kept else ""))
            for p in kept:
                n += 1
                key = f"pass:{p.begin}"
                self.spans[key] = p
                tone = "current" if p.end is None else ("" if p.changed else "dim")
                if p.end is None:
                    current = key
                ms = f"{p.seconds * 1e3:.1f}" if timed and p.seconds is not None else "-"
                lines.append(TableLine(key, (not_ge.shown(p.name, p.stage), p.graph,
                                             "▶ now" if p.end is None else
                                             "yes" if p.changed else "-",
                                             f"{p.delta:+d}" if p.delta else "0", ms),
                                       group, 1, tone=tone))
        self.table.set_lines(lines, keep=current)
        if current is not None:
            self.table.move_to(current)
        last = current or next((k for k in reversed(self.table.visible_keys)
                                if k in self.spans), None)
        if self._diff_of is not None and last is not None and (
                last != self._diff_of or self.spans[last].end is None):
            self.open_pass_diff(last)   # an open diff follows the target to its newest pass
        done = sum(len(s.passes) for s in data.stages)
        summary = f"{counted(done, 'pass', 'passes')} so far at tick {data.tick}" if done else \
            "no pass has run yet"
        self.query_one("#passes-summary", Static).update(
            summary + (" · unchanged hidden (h)" if hidden else " · h hides unchanged")
            + " · Enter: diff", layout=False)

    def action_hide_unchanged(self) -> None:
        self.hide_unchanged = not self.hide_unchanged
        if self._data is not None:
            self.show(self._data)

    def on_tree_table_chosen(self, event: TreeTable.Chosen) -> None:
        if event.key not in self.spans:
            return
        if self._diff_of == event.key:   # Enter again: close it
            self.action_close_diff()
            return
        self.open_pass_diff(event.key)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Esc closes an open diff; else it goes on to the app (restore a maximised pane). A
        # search (in the diff or the rows) first: that Esc ends it (the app's), the next
        # closes the diff.
        if action == "close_diff":
            return self.query_one("#passes-diff").display and not self.app.searching
        return True

    def action_close_diff(self) -> None:
        self.query_one("#passes-diff").display = False
        self._diff_of = None
        self.table.focus()

    def open_pass_diff(self, key: str) -> None:
        span = self.spans[key]
        self.query_one("#passes-diff").display = True
        self._diff_of = key
        text = self.query_one("#passes-diff-text", Static)
        text.update(f"diff of {not_ge.shown(span.name, span.stage)} on {span.graph}: "
                    "re-executing ...")
        self.app.read_job(lambda views: span_diff(views.debugger, span), self.show_diff)

    def open_diff(self, outcome: Outcome) -> None:
        """A diff the log printed (a lesson's `diff`), open in the diff view."""
        self.query_one("#passes-diff").display, self._diff_of = True, None
        self.show_diff(outcome)

    def show_diff(self, outcome: Outcome) -> None:
        if outcome is not self.diff:   # another diff: a match in the last one means nothing
            self.search, self.match = "", None
        self.diff = outcome
        text = self.query_one("#passes-diff-text", Static)
        if isinstance(outcome, Printed) and outcome.style == "diff":
            text.update(coloured_diff(outcome.text, self.size.width, self.match))
        elif isinstance(outcome, Error):
            text.update(Text(f"error: {outcome.message}", style="red"))
        else:
            text.update(getattr(outcome, "text", str(outcome)))

    def _diff_text(self) -> str | None:
        """The text of the diff on screen, if one is open."""
        outcome = self.diff
        if not self.query_one("#passes-diff").display or not isinstance(outcome, Printed) \
                or outcome.style != "diff":
            return None
        return outcome.text

    def find(self, text: str, step: int = 1) -> bool:
        """In the open diff, its lines as drawn (the match marked and scrolled to); with no
        diff open, the pass rows."""
        diff = self._diff_text()
        if diff is None:
            return super().find(text, step)
        at = self.match[:2] if self.match is not None and self.search == text.lower() else None
        self.search = text.lower()
        self.match = next_match(diff_lines(diff, self.size.width), text, at, step)
        self.show_diff(self.diff)
        if self.match is not None:
            self.query_one("#passes-diff").scroll_to(y=self.match[0], animate=False)
        return self.match is not None

    def end_search(self) -> None:
        marked = self.match is not None
        self.search, self.match = "", None
        if marked and self.diff is not None:
            self.show_diff(self.diff)

    def on_resize(self) -> None:
        diff = self._diff_text()
        if diff is not None:   # the lines move between unified and side by side
            self.match = still_there(diff_lines(diff, self.size.width), self.search, self.match)
        if self.diff is not None:   # unified or side by side, as the new width has room for
            self.show_diff(self.diff)

    def selected_span(self) -> PassSpan | None:
        key = self.table.cursor_key
        return self.spans.get(key) if key else None

    def breakpoint_spec(self) -> str | None:
        span = self.selected_span()
        return f"pass {span.name}" if span else None
