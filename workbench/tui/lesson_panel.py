"""The lessons panel at the side: the lessons in teaching order (`gewb lessons`' list), one
chosen to play with Enter; while one plays, its narration (its `say` lines) and at each
`pause` the prompt to go on."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from workbench.terminal_text import printable
from workbench.script.lesson import Lesson, LessonError, all_lessons


class LessonPanel(Vertical):
    class Chosen(Message):
        """A lesson picked from the list: play it."""
        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = Text()
        self.lessons: list[Lesson] = []

    def compose(self) -> ComposeResult:
        yield OptionList(id="lesson-list")
        with VerticalScroll(id="lesson-scroll"):
            yield Static("", id="lesson-text", markup=False)

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
        """A lesson begins: the narration replaces the list."""
        self.text = Text(f"{title}\n", style="bold")
        self.border_title = "Lesson"
        self.query_one(OptionList).display = False
        self.query_one("#lesson-scroll").display = True
        self._add(Text())

    def say(self, text: str) -> None:
        self._add(Text(printable(text) + "\n"))

    def paused(self) -> None:
        self._add(Text("\n[Enter or space: go on]\n\n", style="bold yellow"))

    def ended(self, how: str) -> None:
        self._add(Text(f"\n{how}\n(L: the lessons)\n", style="bold"))

    def _add(self, more: Text) -> None:
        self.text.append_text(more)
        self.query_one("#lesson-text", Static).update(self.text)
        self.query_one("#lesson-scroll", VerticalScroll).scroll_end(animate=False)
