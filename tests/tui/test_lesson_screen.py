"""A lesson drives the screen: its narration reads as prose (a `say` block one paragraph, wrapped
to the panel, a rule between paragraphs, the newest at the top), the output of its `diff`,
`info` and `print` brings forward the pane that shows it (and `show PANE` picks one), and during
a pause space goes on while Enter on a row does what it does elsewhere."""
from __future__ import annotations

import pytest
from textual.widgets import Rule

from workbench.tui.lesson_panel import LessonPanel

from tui_testing import ROOT, make_app, press, settle

pytestmark = pytest.mark.asyncio

TINY = ROOT / "sample_models" / "tiny_cnn.onnx"


def _lesson(tmp_path, *lines: str):
    path = tmp_path / "99_screen.gwb"
    path.write_text("# Lesson: the screen follows.\n" + "".join(f"{line}\n" for line in lines))
    return path


async def _until_paused(pilot) -> None:
    for _ in range(200):
        await settle(pilot)
        if pilot.app.lesson_paused or pilot.app.lesson is None or pilot.app.lesson.done:
            return
    raise AssertionError("the lesson never paused")


def _shown(app) -> list[str]:
    """The panes on screen beside the lesson panel."""
    return [p.PANE_ID for p in app.panes if p.PANE_ID != "log" and p.display
            and p.region.width > 0]


LONG = ("The build's first stage gives every node a stream_id, through a chain of passes on "
        "the engine subgraphs, and this sentence goes on long enough to wrap several times")


async def test_a_say_block_is_one_paragraph_rewrapped_with_rules_between(tmp_path):
    words = LONG.split()
    lesson = _lesson(tmp_path, "say " + " ".join(words[:9]), "say " + " ".join(words[9:]),
                     f"target {TINY}", "step stage", "say The second paragraph.", "pause")
    app = make_app(lesson=lesson)
    async with app.run_test(size=(120, 40)) as pilot:
        await _until_paused(pilot)
        panel = app.query_one(LessonPanel)
        assert [p.plain for p in panel.paragraphs] == [LONG, "The second paragraph."]
        assert len(panel.query(Rule)) == 2          # one above each paragraph
        assert "go on" not in panel.text.plain       # no prompt in the prose ...
        assert "space" in panel.border_subtitle      # ... the border says how to go on
        # from 120 columns the panel takes about 35-40% of the width
        assert 0.35 <= panel.outer_size.width / 120 <= 0.40


async def test_at_80x24_the_panel_opens_at_the_newest_paragraph_beside_one_pane(tmp_path):
    lesson = _lesson(tmp_path, *[f"say {n}: {LONG}" for n in (1,)], f"target {TINY}",
                     "step stage", f"say 2: {LONG}", "pause", "step stage", f"say 3: {LONG}",
                     "pause")
    app = make_app(lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await _until_paused(pilot)
        await press(pilot, "space")
        await _until_paused(pilot)
        await pilot.pause(0.1)
        panel = app.query_one(LessonPanel)
        scroll = panel.query_one("#lesson-scroll")
        newest = panel.query(".lesson-paragraph").last()
        assert newest.render().plain.startswith("3: ")
        assert scroll.scroll_y > 0   # scrolled past the title and the older paragraphs
        # its first line on screen (the whole of it if it fits, else from the top)
        assert scroll.region.y <= newest.region.y < scroll.region.bottom
        assert newest.region.y == scroll.region.y or \
            newest.region.bottom <= scroll.region.bottom
        assert len(_shown(app)) == 1                # one pane beside it, not a grid


async def test_diff_info_and_show_bring_their_pane_forward(tmp_path):
    lesson = _lesson(tmp_path, f"target {TINY}", "step stage", "step pass", "diff", "pause",
                     "info memory-plan", "pause", "show timeline", "pause", "show log", "pause",
                     "print node conv1", "pause")
    app = make_app(lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await _until_paused(pilot)
        passes = app.pane("passes")
        assert app.current == "passes" and _shown(app) == ["passes"]
        assert passes.query_one("#passes-diff").display and passes.diff is not None
        assert "InferShapeForPreprocess (so far) did not change" in passes.diff.text
        await press(pilot, "space")
        await _until_paused(pilot)
        assert app.current == "memory"
        await press(pilot, "space")
        await _until_paused(pilot)
        assert app.current == "timeline"
        await press(pilot, "space")
        await _until_paused(pilot)
        assert app.focused_pane().PANE_ID == "log"
        await press(pilot, "space")
        await _until_paused(pilot)
        assert app.current == "graph"


async def test_info_streams_brings_the_device_pane_of_a_host_program(tmp_path):
    program = ROOT / "sample_models" / "devrun" / "producer_consumer.py"
    lesson = _lesson(tmp_path, f"target {program}", "show source", "break wait event",
                     "continue", "info streams", "pause")
    lesson.write_text(lesson.read_text().replace(
        "\n", f"\n#   programs: {program}\n", 1))
    app = make_app(lesson=lesson, allow_programs=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await _until_paused(pilot)
        assert app.current == "device" and _shown(app) == ["device"]


async def test_a_typed_show_picks_a_pane_too():
    app = make_app(str(TINY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.run_line("show passes")
        await settle(pilot)
        assert app.current == "passes"


async def test_during_a_pause_enter_on_a_pass_opens_its_diff_and_space_goes_on(tmp_path):
    lesson = _lesson(tmp_path, f"target {TINY}", "step stage", "step pass", "passes", "pause",
                     "say after the pause", "pause", "say the end")
    app = make_app(lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await _until_paused(pilot)
        tick = app.views.debugger.tick
        assert app.current == "passes"
        passes = app.pane("passes")
        await press(pilot, "enter")   # on the pass under the cursor: its diff, as elsewhere
        assert app.lesson_paused and app.views.debugger.tick == tick
        assert passes.query_one("#passes-diff").display
        panel = app.query_one(LessonPanel)
        assert "after the pause" not in panel.text.plain
        await press(pilot, "space")
        await _until_paused(pilot)
        assert "after the pause" in panel.text.plain and app.lesson_paused
        panel.query_one("#lesson-scroll").focus()
        await press(pilot, "enter")   # Enter on the lesson panel goes on too
        await _until_paused(pilot)
        assert "the end" in panel.text.plain and "end of the lesson" in panel.text.plain


@pytest.mark.parametrize("name", ["17_streams_and_events", "18_a_label_loop", "20_a_deadlock",
                                  "20_a_race", "23_reverse_stepping"])
async def test_the_lessons_that_ran_to_the_end_now_wait_where_they_narrate(name):
    """They had no `pause`: in the app they ran to the end under their narration ("no device
    now"). Now each waits, with the target still there, after every paragraph it says."""
    lesson = ROOT / "sample_models" / "lessons" / f"{name}.gwb"
    app = make_app(lesson=lesson, allow_programs=True)
    async with app.run_test(size=(80, 24)) as pilot:
        pauses = 0
        await _until_paused(pilot)
        while app.lesson_paused:
            pauses += 1
            assert not app.views.debugger.run.finished, f"pause {pauses}: the run has ended"
            await press(pilot, "space")
            await _until_paused(pilot)
        assert pauses >= 1 and "end of the lesson" in app.query_one(LessonPanel).text.plain


async def test_a_pane_brought_forward_leaves_the_command_line_its_focus(tmp_path):
    lesson = _lesson(tmp_path, f"target {TINY}", "step stage", "step pass", "pause", "diff",
                     "pause")
    app = make_app(lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await _until_paused(pilot)
        app.lessons.step()              # the lesson goes on while the user starts typing
        app.action_focus_command()
        await _until_paused(pilot)
        assert app.current == "passes" and app.focused is app.command_line
