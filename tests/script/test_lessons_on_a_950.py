"""The lessons whose runs touch a chip-dependent runtime path (model binding, AutoSplit's host
SQE buffer) but whose narration holds on either chip: replayed on a 950-class chip they tell the
same story as on the default 910B, only the SQE ids, ticks and host lines the 950's deferred
binding shifts differ. Lesson 27 narrates both chips itself; 29 too."""
import re
from pathlib import Path

import pytest

from workbench.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
LESSONS = SAMPLES / "lessons"

# the same transcript but for numbering: SQE ids, ticks, a host program's line numbers
SAME_BUT_NUMBERING = ["21_hybrid_versus_sink", "24_sq_cq_head_streams_end_graph",
                      "25_a_label_loop", "26_labels_and_control_flow"]
# the capture model's second stream gets another runtime stream id on a 950: its program's
# checks and the narration are what must hold
SAME_RESULTS = ["32_acl_graph_capture"]


def _on_a_950(name: str, tmp_path: Path, capsys) -> tuple[int, str]:
    """Replay lesson ``name`` with `set soc-version Ascend950` before its first command, from a
    copy whose relative paths (../devrun, ../*.onnx) reach the real samples."""
    for entry in SAMPLES.iterdir():
        if entry.name != "lessons":
            (tmp_path / entry.name).symlink_to(entry)
    lines = (LESSONS / f"{name}.gwb").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    copy = tmp_path / "lessons" / f"{name}.gwb"
    copy.parent.mkdir()
    copy.write_text("\n".join([*lines[:first], "set soc-version Ascend950", *lines[first:]])
                    + "\n")
    status = main(["run", str(copy), "--allow-programs"])
    out = capsys.readouterr().out
    out = "".join(line for line in out.splitlines(keepends=True)
                  if not line.startswith(("> set soc-version", "soc-version = ")))
    return status, out


def _numbering_out(text: str) -> str:
    text = re.sub(r"#\d+", "#N", text)
    text = re.sub(r"\btick \d+", "tick N", text)
    return re.sub(r"\.py:\d+", ".py:N", text)


@pytest.mark.parametrize("name", SAME_BUT_NUMBERING)
def test_lesson_tells_the_same_story_on_a_950(name, tmp_path, capsys):
    status, out = _on_a_950(name, tmp_path, capsys)
    assert status == 0, out
    expected = (LESSONS / f"{name}.expected.txt").read_text()
    assert _numbering_out(out) == _numbering_out(expected)
    assert out != expected   # the 950 did run its own way: the binding moved the SQE ids


@pytest.mark.parametrize("name", SAME_RESULTS)
def test_lesson_narration_and_results_hold_on_a_950(name, tmp_path, capsys):
    status, out = _on_a_950(name, tmp_path, capsys)
    assert status == 0, out
    expected = (LESSONS / f"{name}.expected.txt").read_text()

    def told(text: str) -> list[str]:   # the program's printed lines and the narration
        said = [line for line in (LESSONS / f"{name}.gwb").read_text().splitlines()
                if line.startswith("say ")]
        return [line for line in text.splitlines()
                if line.startswith("| ") or f"say {line}" in said]
    assert told(out) == told(expected) and told(out)
    assert out != expected   # the 950 ran its own way (another stream id for the capture)
