"""Every lesson in sample_models/lessons replays to its checked-in transcript (`gewb run
--expect`), as CI runs them: with --allow-programs for a lesson whose header names the host
programs it runs."""
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.script.lesson import read_lesson

LESSONS = sorted((Path(__file__).resolve().parents[2] / "sample_models" / "lessons")
                 .glob("*.gwb"))


def test_there_are_lessons_each_with_its_transcript():
    assert len(LESSONS) >= 4
    assert all(p.with_suffix(".expected.txt").is_file() for p in LESSONS)


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_replays_to_its_expected_transcript(lesson, capsys):
    flag = ["--allow-programs"] if read_lesson(lesson).programs else []
    status = main(["run", str(lesson), "--expect", str(lesson.with_suffix(".expected.txt")),
                   *flag])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "transcript matches" in out
