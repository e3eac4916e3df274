"""The lesson set itself: every topic of issue 14 (1-22) has a lesson of 20-60 steps that says
what it teaches and pauses where it is worth a look; every lesson's header names it; every
target a lesson opens exists."""
import re

import pytest

from workbench.commands.table import LESSON_WORDS
from workbench.script.lesson import (LESSONS_DIR, LessonError, all_lessons, read_lesson,
                                    unpaused_narration)

TOPICS = range(1, 23)


def _lines(lesson) -> list[str]:
    return [line.strip() for line in lesson.path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("topic", TOPICS)
def test_each_topic_has_a_full_lesson(topic):
    full = [lsn for lsn in all_lessons() if lsn.topic == topic and 20 <= lsn.steps <= 60
            and any(line == "pause" for line in _lines(lsn))
            and any(line.startswith("say ") for line in _lines(lsn))]
    assert full, f"topic {topic:02d} has no lesson of 20-60 steps with say and pause"


def test_every_target_a_lesson_opens_exists():
    for lesson in all_lessons():
        for line in _lines(lesson):
            if line.startswith("target "):
                assert (lesson.path.parent / line.split()[1]).is_file(), (lesson.name, line)


def test_a_header_names_the_lesson_and_its_file(tmp_path):
    for lesson in all_lessons():
        assert any(f"gewb run sample_models/lessons/{lesson.path.name}" in line
                   for line in lesson.header), lesson.name
    bad = tmp_path / "7_lesson.gwb"
    bad.write_text("# Lesson: x.\nsay hi\n")
    with pytest.raises(LessonError, match="NN_words"):
        read_lesson(bad)
    bare = tmp_path / "07_lesson.gwb"
    bare.write_text("say hi\n")
    with pytest.raises(LessonError, match="first line"):
        read_lesson(bare)


def test_lessons_sort_by_topic():
    names = [lsn.name for lsn in all_lessons()]
    assert names == sorted(p.stem for p in LESSONS_DIR.glob("*.gwb"))
    assert all(re.match(r"\d\d_", n) for n in names)


def test_a_lesson_names_in_its_header_every_program_it_runs():
    """What `gewb run --allow-programs` agrees to is what the header says (issue 15)."""
    for lesson in all_lessons():
        opened = [line.split()[1] for line in _lines(lesson)
                  if line.startswith("target ") and line.endswith(".py")]
        assert lesson.programs == list(dict.fromkeys(opened)), lesson.name
        if opened:
            assert any(line.endswith("--allow-programs") and "gewb run" in line
                       for line in lesson.header), lesson.name


@pytest.mark.parametrize("lesson", all_lessons(), ids=lambda lsn: lsn.name)
def test_every_lesson_pauses_before_it_moves_on_from_what_it_narrates(lesson):
    """Once the target has moved, a `say` speaks about where it is, and a `print`, `info` or
    `diff` shows it: a `pause` must follow before the next command that moves the target, or
    the app runs on under the narration and past the output."""
    assert unpaused_narration(lesson.path, LESSON_WORDS) == []


def _flagged(tmp_path, name: str, text: str) -> list[str]:
    """What the pause rule says of a lesson ``name`` made of ``text``."""
    script = tmp_path / name
    script.write_text(text)
    return unpaused_narration(script, LESSON_WORDS)


def test_the_pause_rule_names_narration_that_runs_on_unread(tmp_path):
    assert _flagged(tmp_path, "99_x.gwb",
                    "# Lesson: x.\nsay intro, before anything moves: no pause needed\n"
                    "target light:a\nstep stage\nsay here the graph is parsed\n"
                    "say (one block)\ninfo om\nc\nsay paused after\npause\ncontinue\n"
                    "say the end\nprint node x\n") == [
        "99_x.gwb:5: its narration has no `pause` before `c` moves the target on",
        "99_x.gwb:7: `info om` shows where the target stands, and `c` moves it on with no "
        "`pause` to see it"]


def test_the_pause_rule_names_output_shown_at_a_stop_that_a_move_replaces_unseen(tmp_path):
    """What a lesson prints where the target stands (print, info, diff, where...) is there to
    be seen: the next move replaces it, so a `pause` comes between, narrated or not. Setting
    or deleting a breakpoint shows nothing of the target, and `show PANE` picks the pane the
    moves after it are watched in."""
    bad = ("# Lesson: x.\nsay intro\ntarget light:a\nshow passes\nstep stage 2\n"
           "break pass P\ncontinue\nprint node a\ninfo streams\nstep node\n"
           "diff\nsay the diff shows it\npause\nfinish\nwhere\ncontinue\nprint node b\n")
    assert _flagged(tmp_path, "99_x.gwb", bad) == [
        "99_x.gwb:8: `print node a` shows where the target stands, and `step node` moves it "
        "on with no `pause` to see it",
        "99_x.gwb:15: `where` shows where the target stands, and `continue` moves it on "
        "with no `pause` to see it"]
    good = bad.replace("info streams\n", "info streams\npause\n").replace("where\n",
                                                                            "where\npause\n")
    assert _flagged(tmp_path, "98_x.gwb", good) == []


def test_the_pause_rule_names_a_continue_that_runs_past_a_hit_the_narration_speaks_of(tmp_path):
    """`continue` `continue` `say`: the say narrates both hits, the app shows only the last.
    A hit may be looked into (step, finish) before the pause; with no breakpoint set a
    `continue` stops at no hit."""
    script = ("# Lesson: x.\ntarget light:a\nbreak sqe\ncontinue\nc\n"
              "say the first SQE ran, then the second\npause\n"
              "continue\nfinish\ninfo streams\npause\ndelete all\ncontinue\ncontinue\n")
    assert _flagged(tmp_path, "99_x.gwb", script) == [
        "99_x.gwb:4: `continue` stops at a breakpoint hit, and `c` runs past it with no "
        "`pause` to see it"]
    assert _flagged(tmp_path, "98_x.gwb",
                    script.replace("continue\nc\n", "continue\npause\nc\n")) == []
    assert len(_flagged(tmp_path, "97_x.gwb", "# Lesson: x.\ntarget light:a\n"
                        "watch node x attr engine\ncontinue\ndelete 1\nrestart\n")) == 1
