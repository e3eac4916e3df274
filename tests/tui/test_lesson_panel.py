"""Lessons in the app: L lists them (`gewb lessons`' list), Enter plays one in a fresh session
with its narration beside the panes, space goes on at each pause, and every lesson plays
to its end with no error line."""
from __future__ import annotations

import pytest

from workbench.script.lesson import all_lessons
from workbench.tui.lesson_panel import LessonPanel

from tui_testing import ROOT, TINY, log_text, make_app, press, run, settle
from workbench.tui.screens import Question

pytestmark = pytest.mark.asyncio


async def _play_to_the_end(pilot) -> int:
    """Space at each pause until the lesson has run its last line; the pauses it made."""
    app = pilot.app
    pauses = 0
    while app.lesson_paused or not app.lesson.done:
        if app.lesson_paused:
            await press(pilot, "space")
            pauses += 1
        else:
            await settle(pilot)
    return pauses


async def test_l_lists_the_lessons_and_enter_plays_one_in_a_fresh_session():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "set max-task-count 40", "break pass PrunePass")
        before = app.session
        await press(pilot, "L")
        panel = app.query_one(LessonPanel)
        names = [lsn.name for lsn in all_lessons()]
        assert panel.display and panel.listing and app.focused.id == "lesson-list"
        assert [str(o.id) for o in app.focused.options] == [str(lsn.path)
                                                            for lsn in all_lessons()]
        await press(pilot, "down", "enter")   # the second lesson
        assert app.lesson.script.stem == names[1] and app.session is not before
        assert not panel.listing and names[1] in panel.text.plain
        assert app.session.settings.max_task_count != 40   # nothing carried over
        pauses = await _play_to_the_end(pilot)
        assert pauses > 0 and "end of the lesson" in panel.text.plain
        said = [line for line in (app.lesson.script.read_text().splitlines())
                if line.startswith("say ")]
        assert said[0][4:] in panel.text.plain and said[-1][4:] in panel.text.plain
        await press(pilot, "L")
        assert panel.listing


LESSON_WITH_A_PROGRAM = ROOT / "sample_models/lessons/30_hunting_sync_bugs.gwb"


@pytest.mark.parametrize("answer", ["y", "n"])
async def test_a_lesson_with_a_host_program_asks_before_running_it(answer):
    """The header names deadlock.py: nothing of the lesson runs until the user says yes."""
    app = make_app(lesson=LESSON_WITH_A_PROGRAM)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):   # (settle would wait for the answer the question holds back)
            if isinstance(app.screen, Question):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, Question) and "deadlock.py" in app.screen.text
        assert app.session.debugger is None
        await press(pilot, answer)
        panel = app.query_one(LessonPanel)
        if answer == "y":
            assert app.session.debugger is not None and app.lesson is not None
        else:
            assert app.session.debugger is None and app.lesson is None
            assert "not run (you answered no; --allow-programs agrees up front)" in \
                panel.text.plain


async def test_a_lesson_opens_no_program_its_header_does_not_name(tmp_path):
    script = tmp_path / "sneaky.gwb"
    script.write_text(f"say hello\ntarget {ROOT}/sample_models/devrun/deadlock.py\n")
    app = make_app(lesson=script)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.lesson is None and app.session.debugger is None   # stopped at that line
        assert "a host program this script's header does not name" in \
            app.query_one(LessonPanel).text.plain


@pytest.mark.slow
@pytest.mark.parametrize("lesson", all_lessons(), ids=lambda lsn: lsn.name)
async def test_every_lesson_plays_to_its_end_in_the_app(lesson):
    app = make_app(lesson=lesson.path, allow_programs=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _play_to_the_end(pilot)
        panel = app.query_one(LessonPanel)
        assert "end of the lesson" in panel.text.plain
        assert "lesson stopped" not in panel.text.plain
        assert "error:" not in log_text(app) or lesson.name.startswith("20")   # faults shown


@pytest.mark.parametrize("size, keys", [((40, 12), ()), ((100, 30), ("7",))])
async def test_page_keys_on_the_lesson_list_never_raise_and_l_brings_it_out(size, keys):
    """At 40x12 the panel has no rows for the list, and with the log maximised the list was
    behind it: PageDown raised KeyError out of the app (Textual's OptionList lays its lines
    out only at a size). Now a page key there does nothing, and L restores a maximised pane,
    so the list is on screen and pages through the lessons."""
    app = make_app(TINY)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, *keys, "L", "pagedown", "pageup", "pagedown")
        lessons = app.query_one("#lesson-list")
        assert app.focused is lessons and app.screen.maximized is None
        if size == (100, 30):   # room for the list: a page down moves past the first lessons
            assert lessons.region.height > 0 and lessons.highlighted > 0
