"""`gewb lessons`: every lesson in teaching order with its summary; one lesson's header and how
to play it; a name that is not one lesson, one line."""
from workbench.cli import main
from workbench.script.lesson import LESSONS_DIR, all_lessons


def run(capsys, *argv):
    code = main(["lessons", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_list_is_every_lesson_in_file_name_order_with_its_summary(capsys):
    code, out, _ = run(capsys)
    assert code == 0
    rows = out.splitlines()[:-1]
    names = sorted(p.stem for p in LESSONS_DIR.glob("*.gwb"))
    assert [row.split()[0] for row in rows] == names
    first = rows[0]
    assert first.startswith("01_ir_nodes_and_anchors") and "anchors instead of edges" in first
    assert out.splitlines()[-1].startswith(f"{len(names)} lessons")


def test_one_lesson_by_topic_number_prints_its_header_and_how_to_play_it(capsys):
    code, out, _ = run(capsys, "11")
    assert code == 0
    assert out.startswith("11_sync_events (")
    assert "OptimizeBySendEvents" in out
    assert "gewb run sample_models/lessons/11_sync_events.gwb" in out
    assert "--expect sample_models/lessons/11_sync_events.expected.txt" in out


def test_a_name_that_starts_several_lessons_or_none_is_one_line_naming_them(capsys):
    code, _, err = run(capsys, "1")
    several = sorted(p.stem for p in LESSONS_DIR.glob("1*.gwb"))
    assert code == 2 and len(several) > 1
    assert err.strip() == f"gewb lessons: '1' names {len(several)} lessons: {', '.join(several)}"
    code, _, err = run(capsys, "99_nothing")
    assert code == 2 and err.strip() == ("gewb lessons: no lesson '99_nothing' "
                                         "(`gewb lessons` lists them)")


def test_every_lesson_header_parses():
    lessons = all_lessons()
    assert all(lesson.summary and lesson.steps > 0 for lesson in lessons)


def test_the_readme_counts_the_lessons_the_tree_has():
    readme = (LESSONS_DIR.parents[1] / "README.md").read_text()
    count = len(list(LESSONS_DIR.glob("*.gwb")))
    assert f"`gewb lessons` lists {count} lessons" in readme
