"""The lessons panel at the side: the lessons in teaching order (`gewb lessons`' list), one
chosen to play with Enter; while one plays, its narration: each `say` block one paragraph of
prose (the file's line breaks joined, wrapped to the panel), a rule between paragraphs, the
newest at the top. At a `pause` the border says how to go on (space, or Enter here)."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Rule, Static
from textual.widgets.option_list import Option

from workbench.terminal_text import printable
from workbench.script.lesson import Lesson, LessonError, all_lessons


class LessonList(OptionList):
    """The lessons to pick from. Textual's OptionList lays its lines out only at a size above
    zero, and a page key before that raised KeyError out of the app (the list focused at
    40x12, where the panel has no rows, or behind a maximised pane): nothing laid out, a page
    key does nothing, as on an empty list."""

    def _laid_out(self) -> bool:
        return bool(self.scrollable_content_region)

    def action_page_down(self) -> None:
        if self._laid_out():
            super().action_page_down()

    def action_page_up(self) -> None:
        if self._laid_out():
            super().action_page_up()


class LessonPanel(Vertical):
    class Chosen(Message):
        """A lesson picked from the list: play it."""
        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    # Enter on the narration goes on, as space does anywhere (the app's lesson_next)
    BINDINGS = [Binding("enter", "go_on", "Go on", show=False)]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.paragraphs: list[Text] = []
        self.lesson_title = ""
        self.lessons: list[Lesson] = []

    def compose(self) -> ComposeResult:
        yield LessonList(id="lesson-list")
        yield VerticalScroll(id="lesson-scroll")

    def on_mount(self) -> None:
        self.border_title = "Lessons"
        self.query_one("#lesson-scroll").display = False

    @property
    def listing(self) -> bool:
        return self.query_one(OptionList).display

    def show_list(self, current: Path | None = None) -> None:
        """The lessons, ``current`` (the one playing or played last) highlighted, else the
        first."""
        options = self.query_one(OptionList)
        if not self.lessons:
            try:
                self.lessons = all_lessons()
            except LessonError as exc:   # a malformed lesson file: say which
                self.say(str(exc))
                return
            options.add_options(Option(Text.assemble((f"{lsn.name}\n", "bold"),
                                                     (lsn.summary, "dim")), id=str(lsn.path))
                                for lsn in self.lessons)
        self.border_title = "Lessons (Enter plays)"
        paths = [lsn.path for lsn in self.lessons]
        options.highlighted = paths.index(current) if current in paths else 0
        options.display = True
        self.query_one("#lesson-scroll").display = False
        self.screen.set_focus(options)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(Path(event.option.id)))

    def start(self, title: str) -> None:
        """A lesson begins: its narration, from its title, replaces the list."""
        self.paragraphs, self.lesson_title = [], title
        scroll = self.query_one("#lesson-scroll", VerticalScroll)
        scroll.remove_children()
        scroll.mount(Static(Text(title, style="bold"), classes="lesson-title", markup=False))
        self.narration()

    def narration(self) -> None:
        """The narration on screen (not the list), at the newest paragraph."""
        self.border_title = "Lesson"
        self.border_subtitle = ""
        self.query_one(OptionList).display = False
        self.query_one("#lesson-scroll").display = True
        self.call_after_refresh(self._to_newest)   # once it is laid out again

    def say(self, paragraph: str) -> None:
        """One `say` block: a paragraph, wrapped to the panel, a rule above it."""
        self._add(Text(printable(paragraph)))

    def paused(self) -> None:
        self.border_subtitle = "space: go on"

    def ended(self, how: str) -> None:
        self._add(Text(f"{how}\n(L: the lessons)", style="bold"))

    @property
    def text(self) -> Text:
        """The narration so far, as plain text would read it (the title, then each
        paragraph)."""
        return Text("\n\n").join([Text(self.lesson_title), *self.paragraphs])

    def _add(self, paragraph: Text) -> None:
        self.border_subtitle = ""
        scroll = self.query_one("#lesson-scroll", VerticalScroll)
        self.paragraphs.append(paragraph)
        for older in scroll.query(Paragraph):
            older.remove_class("-newest")
        scroll.mount_all([Rule(classes="lesson-rule"),
                          Paragraph(paragraph, classes="lesson-paragraph -newest")])

    def _to_newest(self) -> None:
        newest = self.query(".-newest")
        if newest:
            newest.first(Paragraph).into_view()

    async def action_go_on(self) -> None:
        await self.app.run_action("lesson_next")


class Paragraph(Static):
    """One paragraph of narration. The newest is scrolled into view with its start showing:
    all of it when it fits (the older ones above it), else from its first line, not the
    narration's end, which is where the reader goes on."""

    def __init__(self, text: Text, classes: str) -> None:
        super().__init__(text, classes=classes, markup=False)

    def on_resize(self) -> None:
        if self.has_class("-newest"):   # laid out (or rewrapped)
            self.into_view()

    def into_view(self) -> None:
        # (a region taller than the view scrolls to its top; a shorter one just into view)
        if isinstance(self.parent, VerticalScroll):
            self.parent.scroll_to_widget(self, animate=False)
