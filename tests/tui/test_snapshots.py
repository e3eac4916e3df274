"""SVG snapshots of the main screens at fixed sizes (pytest-textual-snapshot; refresh them with
`--snapshot-update` after a deliberate change and look at them). Deterministic: the app hides
wall-clock pass times and does not blink its cursors, and the engine is deterministic."""
from __future__ import annotations

from tui_testing import DEVRUN, ROOT, TINY, make_app, press, run, settle


def _after(*lines: str, keys: tuple[str, ...] = ()):
    async def before(pilot) -> None:
        await settle(pilot)
        await run(pilot, *lines)
        await press(pilot, *keys)
    return before


def test_graph_pane_at_80x24(snap_compare):
    assert snap_compare(make_app(TINY), terminal_size=(80, 24),
                        run_before=_after("step stage 2", keys=("f10",)))


def test_stream_ids_changing_side_by_side_at_200x60(snap_compare):
    assert snap_compare(make_app(TINY), terminal_size=(200, 60),
                        run_before=_after("run-to pass NodeStreamUpdatePass", keys=("f10",)))


def test_device_pane_at_a_distributed_event_record_at_120x40(snap_compare):
    assert snap_compare(make_app(TINY), terminal_size=(120, 40),
                        run_before=_after("break distribute type=event_record", "continue",
                                          "step task", keys=("3",)))


def test_deadlock_wait_for_chain_at_120x40(snap_compare):
    assert snap_compare(make_app(f"{DEVRUN}/deadlock.py"), terminal_size=(120, 40),
                        run_before=_after("break fault deadlock", "continue"))


def test_lesson_paused_at_120x40(snap_compare):
    lesson = ROOT / "sample_models" / "lessons" / "04_passes_of_the_tiny_cnn.gwb"
    assert snap_compare(make_app(lesson=lesson), terminal_size=(120, 40),
                        run_before=_after())
