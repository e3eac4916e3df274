"""A lesson drives the screen: its narration reads as prose (a `say` block one paragraph, wrapped
to the panel, a rule between paragraphs, the newest at the top), the output of its `diff`,
`info` and `print` brings forward the pane that shows it (and `show PANE` picks one), and during
a pause space goes on while Enter on a row does what it does elsewhere."""
from __future__ import annotations

import threading

import pytest
from textual import events
from textual.widgets import Rule

from workbench.script.player import Player
from workbench.tui.lesson_panel import LessonPanel
from workbench.tui.screens import Question

from tui_testing import ROOT, log_text, make_app, press, settle

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


@pytest.mark.parametrize("name", ["23_streams_and_events", "25_a_label_loop",
                                  "35_reverse_stepping"])
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


async def test_each_breakpoint_hit_a_lesson_narrates_is_on_screen_at_a_pause():
    """Lesson 30 narrates "the producer's Exp, then the consumer's Add, then the producer's
    Relu" over three `continue`s to `break sqe` (ticks 56, 58, 60). It paused only after the
    third: the app ran past the first two hits unseen. Now it waits at each."""
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    app = make_app(lesson=lesson, allow_programs=True)
    async with app.run_test(size=(80, 24)) as pilot:
        ticks = []
        await _until_paused(pilot)
        while app.lesson_paused and len(ticks) < 6:
            ticks.append(app.views.debugger.tick if app.views.debugger else None)
            await press(pilot, "space")
            await _until_paused(pilot)
        assert ticks[:5] == [71, 71, 56, 58, 60], ticks   # the first run; then each hit


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


async def test_a_command_typed_while_the_lesson_starts_waits_for_its_first_pause(tmp_path,
                                                                                 monkeypatch):
    """`:` pressed before the lesson parks opens the command line at once and keeps it while
    the lesson's first answers come (its target loading moved the focus to a pane, and the
    rest of the line went to the app: a space went on, n was gdb's next); Enter queues the
    line until the lesson pauses, instead of running it between the lesson's steps."""
    gates = [threading.Event(), threading.Event()]   # the lesson's first two steps wait
    step = Player.step

    def gated(self, host, run):
        if self.at < len(gates):
            assert gates[self.at].wait(30), "the test never opened the gate"
        return step(self, host, run)
    monkeypatch.setattr(Player, "step", gated)
    lesson = _lesson(tmp_path, f"target {TINY}", "step stage", "say Parked here.", "pause",
                     "step stage", "say Gone on.", "pause")
    app = make_app(lesson=lesson)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for key in ("colon", *"info"):
            await pilot.press(key)
        gates[0].set()   # the target loads: a new kind of target, the panes laid out again
        for _ in range(200):
            await pilot.pause(0.01)
            if app.answers:
                break
        assert app.kind is not None and app.focused is app.command_line
        for key in (*" breakpoints", "enter"):
            await pilot.press("space" if key == " " else key)
        assert not app.lesson_paused and app.answers == 1   # still in its second step
        assert "info breakpoints: runs when the lesson pauses" in log_text(app)
        gates[1].set()
        await _until_paused(pilot)
        await settle(pilot)
        log = log_text(app)
        assert log.index("Parked here.") < log.index("> info breakpoints")
        assert "Gone on." not in app.query_one(LessonPanel).text.plain and app.lesson_paused
        assert app.focused is not app.command_line   # Enter left the command line, as always


async def test_a_colon_typed_while_the_programs_question_is_up_leaves_it_its_keys():
    """`:` moved the focus to the command line under the dialog: the dialog's y and n then went
    into the hidden line, and nothing could answer it."""
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    app = make_app(lesson=lesson)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]   # the question
        for key in ("colon", "slash", "y"):   # (no settling: the dialog holds the answers)
            await pilot.press(key)
        await _until_paused(pilot)
        assert app.command_line.value == "" and app.lesson_paused


async def test_a_command_typed_in_one_go_with_the_answer_to_the_question_reaches_the_line():
    """`y:info break` typed as one burst: the keys after y came while the dialog was still on
    the screen, and were lost on it."""
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    app = make_app(lesson=lesson)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):   # the burst comes while the dialog is up (slow to come under load)
            if isinstance(app.screen, Question):
                break
            await pilot.pause(0.05)
        for key in ("y", "colon", *"info"):   # no wait between the keys
            app._driver.send_message(events.Key(key, key if len(key) == 1 else None))
        for _ in range(100):
            await pilot.pause(0.02)
            if app.command_line.value:
                break
        assert app.command_line.value == "info" and app.focused is app.command_line


async def test_beside_the_lesson_at_80x24_the_deadlock_s_chain_folds_by_its_wrapped_rows():
    """Beside the panel the device pane is narrow, and each link of the chain wraps to two or
    three rows: counted by lines, the chain and the fault filled the pane and pushed the SQE
    lists off it. Short of room each line takes one row, cut at the pane's edge."""
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    app = make_app(lesson=lesson, allow_programs=True)
    async with app.run_test(size=(80, 24)) as pilot:
        device = app.pane("device")
        for _ in range(20):   # on through the race, to the deadlock: its chain
            await _until_paused(pilot)
            if device.data.chain:
                break
            await press(pilot, "space")
        assert device.data.chain and app.current == "device"
        faults = device.query_one("#device-faults")
        assert faults.size.height <= max(device.size.height // 3, 3)
        shown = [line.text.strip() for line in faults.render_lines(faults.region.reset_offset)]
        assert shown[1].startswith(device.data.chain[0][:20]) and shown[1].endswith("…")
        assert device.query_one("#device-streams").size.height >= 4   # the SQE lists show


async def test_beside_the_lesson_the_device_tables_keep_their_columns_in_line():
    """A table's header wrapped at the pane's edge ("waited on" / "by  blocked" on two
    rows), out of line with its rows: they scroll sideways instead."""
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    app = make_app(lesson=lesson, allow_programs=True)
    async with app.run_test(size=(200, 60)) as pilot:
        device = app.pane("device")
        for _ in range(20):   # on to the deadlock, where the sync table has its rows
            await _until_paused(pilot)
            if device.data.chain:
                break
            await press(pilot, "space")
        sync = device.query_one("#device-sync")
        lines = str(sync.render()).splitlines()
        assert any("waited on by" in line for line in lines)
        assert sync.size.height == len(lines)   # one row a line: none wrapped
        assert sync.size.width > device.query_one("#device-tables").size.width


@pytest.mark.parametrize("name, tick, pane, shown, seen", [
    ("02_gepass_scheduling", 258, "graph", "print node flatten", "%flatten : Reshape"),
    ("24_sq_cq_head_streams_end_graph", 952, "device", "info notifies", "set, 1 record")])
async def test_a_lesson_waits_on_what_it_shows_before_it_moves_on(name, tick, pane, shown,
                                                                    seen):
    """Lesson 02 printed %flatten at its breakpoint and stepped on at once (ReshapeRemovePass
    deletes it); lesson 24 showed the EndGraph notify set and stepped past it. In the app the
    output flashed by: the pause came only after the next step. Now each waits on it, its
    pane in front, nothing run since."""
    lesson = ROOT / "sample_models" / "lessons" / f"{name}.gwb"
    app = make_app(lesson=lesson)
    async with app.run_test(size=(120, 40)) as pilot:
        stops = []
        await _until_paused(pilot)
        while app.lesson_paused and (not stops or stops[-1][0] <= tick):
            stops.append((app.views.debugger.tick, app.current, log_text(app)))
            await press(pilot, "space")
            await _until_paused(pilot)
        at = [(current, log) for t, current, log in stops if t == tick]
        assert at, [t for t, _, _ in stops]
        current, log = at[-1]
        last = " ".join(log.rpartition("\n> ")[2].split())   # since the last command echoed
        assert current == pane and last.startswith(shown) and seen in last, (current, last)
