"""docs/seed_coverage.md cannot rot: every module, test function and lesson it names exists, a
row without one says so with a dash, and every lesson is in it."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "seed_coverage.md"
LESSONS = ROOT / "sample_models" / "lessons"


def _rows() -> list[list[str]]:
    rows = []
    for line in DOC.read_text().splitlines():
        if re.match(r"\| 00\d ", line):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            assert len(cells) == 5, line
            rows.append(cells)
    return rows


def _named(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_every_seed_has_its_concepts():
    seeds = [row[0][:3] for row in _rows()]
    assert {s: seeds.count(s) for s in ("000", "001", "002", "003")} == {
        "000": 43, "001": 71, "002": 17, "003": 19}


# What issue 14 added to the engine: each keeps a row naming its module and test, and a lesson
# unless the row says why there is none.
LANDED = ("DVPP engine's graph optimizer", "DNN_VM_AICPU_ASCEND", "DSAEngine", "Kernel binaries",
          "STREAM_LABEL_SWITCH_BY_INDEX (23)", "GE's dump formats", "MultiBatchPass",
          "Autofusion", "StreamSwitchN", "The snapshot flow", "Model destroy")


@pytest.mark.parametrize("concept", LANDED)
def test_what_landed_has_its_module_test_and_lesson(concept):
    rows = [row for row in _rows() if concept in row[1]]
    assert rows, f"no row for {concept}"
    for _, name, module, test, lesson in rows:
        assert _named(module) and _named(test), name
        assert _named(lesson) or lesson.startswith("— "), name


def test_every_module_named_exists_or_the_row_says_none():
    for seed, concept, module, _, _ in _rows():
        names = _named(module)
        assert names or module.startswith("—"), concept
        for path in names:
            assert (ROOT / path).is_file(), f"{concept}: no module {path}"


def test_every_test_named_exists_or_the_row_says_none():
    for seed, concept, _, test, _ in _rows():
        names = _named(test)
        assert names or test.startswith("—"), concept
        for name in names:
            path, _, function = name.partition("::")
            text = (ROOT / path).read_text()
            assert re.search(rf"^def {function}\(", text, re.M), f"{concept}: no test {name}"


def test_every_lesson_named_exists_or_the_row_says_why_not():
    for seed, concept, _, _, lesson in _rows():
        if lesson.startswith("—"):   # none: the reason may quote a command, not a lesson
            assert len(lesson) > 2, f"{concept}: say why there is no lesson"
            continue
        names = _named(lesson)
        assert names, concept
        for stem in names:
            assert (LESSONS / f"{stem}.gwb").is_file(), f"{concept}: no lesson {stem}"


def test_every_lesson_is_in_the_table():
    named = set(re.findall(r"`(\d\d_[a-z0-9_]+)`", DOC.read_text()))
    assert {p.stem for p in LESSONS.glob("*.gwb")} <= named
