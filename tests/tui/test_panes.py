"""Each pane's own interactions: the graph's anchors, filter and jump, F9 on a node, a pass and
an SQE; hiding unchanged passes; the memory plan following the graph's selection; timeline
zoom; the source line that submitted an SQE; a lesson's narration and pause; going back."""
from __future__ import annotations

import pytest

from workbench.tui.graph_pane import COLUMNS
from workbench.tui.tree_table import ARROW

from tui_testing import DEVRUN, ROOT, TINY, if_model, log_text, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


async def test_enter_on_a_node_opens_its_anchors_and_peers_in_place():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 2")
        graph = app.pane("graph")
        graph.table.focus()
        graph.table.move_to("tiny_cnn/relu1")
        await press(pilot, "enter")
        anchors = {k.partition("#")[2]: graph.table.line(k).cells[-1]
                   for k in graph.table.visible_keys if k.startswith("tiny_cnn/relu1#")}
        assert anchors["in 0"].endswith("%bn1:0")
        assert "%pool1:0" in anchors["out 0"] and anchors["out 0"].startswith("f32[1,8,16,16]")
        assert set(anchors) == {"in 0", "out 0", "in ctrl", "out ctrl"}
        await press(pilot, "enter")          # Enter again closes them
        assert not any("#" in k for k in graph.table.visible_keys)


async def test_the_filter_narrows_the_rows_and_enter_jumps_to_the_first_match():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 2")
        graph = app.pane("graph")
        await press(pilot, "slash", *"relu")
        rows = [k for k in graph.table.visible_keys if not k.startswith("graph:")]
        assert rows and all("relu" in k.lower() for k in rows)
        await press(pilot, "enter")
        assert graph.table.has_focus and graph.table.cursor_key == rows[0]
        assert graph.jump("fc") and graph.table.cursor_key == "tiny_cnn/fc"


async def test_esc_in_the_filter_of_a_maximised_graph_pane_drops_the_filter_not_the_maximise():
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 2")
        graph = app.pane("graph")
        await press(pilot, "1", "slash", *"relu")   # maximised, then filtered
        assert app.screen.maximized is graph
        await press(pilot, "escape")
        assert not graph.query_one("#graph-filter").display and graph.table.has_focus
        assert app.screen.maximized is graph and any(
            "conv" in k for k in graph.table.visible_keys)   # every row back
        await press(pilot, "escape")
        assert app.screen.maximized is None


async def test_f9_toggles_a_breakpoint_on_the_selected_node_pass_and_sqe():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 3")
        graph = app.pane("graph")
        graph.table.focus()
        graph.table.move_to("tiny_cnn/fc")
        await press(pilot, "f9")
        d = app.views.debugger
        assert [bp.text for bp in d.breakpoints.values()] == ["node fc"]
        await press(pilot, "f9")
        assert not d.breakpoints
        await press(pilot, "2")
        passes = app.pane("passes")
        passes.table.move_to(passes.table.visible_keys[0])   # a stage: no pass to break on
        await press(pilot, "f9")               # (it was silent: nothing, not even a line)
        assert not d.breakpoints and log_text(app).endswith(
            "F9: nothing here to break on (put the cursor on a pass, a node or an SQE)")
        passes.table.move_to(next(k for k, s in passes.spans.items()
                                  if s.name == "PrunePass"))
        await press(pilot, "b")                # the gdb letter does the same
        assert [bp.text for bp in d.breakpoints.values()] == ["pass PrunePass"]
        await run(pilot, "delete all", "break sqe", "continue")
        await press(pilot, "3", "f9")
        grid = app.query_one("#stream-grid")
        column, row = grid.selected()
        entry = column.window[row]
        assert [bp.text for bp in d.breakpoints.values()][-1] == (
            f"sqe type={entry.task_type} rt_stream={column.stream} if pos == {entry.pos}")


async def test_h_hides_the_passes_that_changed_nothing():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 6")
        await press(pilot, "2")
        passes = app.pane("passes")
        shown = lambda: [passes.spans[k] for k in passes.table.visible_keys  # noqa: E731
                         if k in passes.spans]
        assert any(not s.changed for s in shown())
        await press(pilot, "h")
        assert shown() and all(s.changed or s.end is None for s in shown())


async def test_a_pass_ge_does_not_have_is_marked_in_the_passes_pane():
    """The pane names a pass of ours "(not GE)", as gewb passes and the passes table do, so a
    student does not look for it in GE's source; GE's own passes stay unmarked."""
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 3")
        await press(pilot, "2")
        passes = app.pane("passes")
        named = {s.name: passes.table.line(k).cells[0] for k, s in passes.spans.items()}
        assert named["BatchNormMulAddFusionPass"] == "BatchNormMulAddFusionPass (not GE)"
        assert named["ConvBiasAddFusionPass"] == "ConvBiasAddFusionPass (not GE)"
        assert named["PrunePass"] == "PrunePass"
        assert named["MatMulAddFusionPass"] == "MatMulAddFusionPass"
        key = next(k for k, s in passes.spans.items() if s.name == "BatchNormMulAddFusionPass")
        passes.table.move_to(key)
        table = passes.table
        drawn = [strip.text for strip in table.render_lines(table.size.region)]
        assert any("BatchNormMulAddFusionPass (not GE)" in line for line in drawn)


async def test_the_passes_pane_marks_our_clean_ups_in_optimize_stage2_only():
    """ConstantFuseSamePass and PrunePass are GE's passes in stage 1; GE's OptimizeStage2 runs
    neither, so the pane marks their runs there and not their runs in stage 1."""
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 8")   # past OptimizeStage2, the 7th stage
        await press(pilot, "2")
        passes = app.pane("passes")
        named = {(s.stage, s.name): passes.table.line(k).cells[0]
                 for k, s in passes.spans.items()}
    for name in ("ConstantFuseSamePass", "PrunePass"):
        assert named[("OptimizeOriginalGraph", name)] == name
        assert named[("OptimizeStage2", name)] == f"{name} (not GE)"


async def test_a_table_filled_while_hidden_shows_its_first_rows_once_on_screen():
    """At 80 columns the passes pane is hidden until 2 shows it; its answer can come before the
    layout gives it a size, and the table then scrolled to the cursor at one row high. The
    screen kept only the current pass, the stages above it off screen, until a key moved."""
    app = make_app(TINY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, *["f10"] * 9)   # Prepare's pass and its five node passes, two more
        passes = app.pane("passes")
        data = passes.read(app.views)   # the answer, drawn while the pane has no size
        passes.show(data)
        passes.shown, passes.stale = data, False
        await press(pilot, "2")
        table = passes.table
        drawn = [strip.text for strip in table.render_lines(table.size.region)]
        assert drawn[1].startswith("▾ Prepare") and "InferShapeForPreprocess" in drawn[2]
        assert "OptimizeOriginalGraph" in drawn[3] and "▶ now" in drawn[6]


async def test_a_host_program_that_ended_is_not_said_to_have_never_set_a_device():
    """acl.finalize resets the device: the pane said "nothing has called set_device" under the
    program's own deadlock, which had called it at line 12."""
    app = make_app(f"{DEVRUN}/deadlock.py")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f5", "f5")      # parked at the deadlock, then on to the end
        device = app.pane("device")
        assert device.data.note == "no device now: the run has finished (F8 steps back into it)"
        assert device.data.faults[0].startswith("deadlock.py:24: deadlock:")


async def test_the_memory_plan_highlights_the_buffers_of_the_selected_node():
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue")
        memory = app.pane("memory")
        labels = [k for k in memory.table_keys() if not k.startswith("seg:")]
        assert "relu1:0" in labels and "input:0" in labels and "fc.w:0" in labels
        segments = [k for k in memory.table_keys() if k.startswith("seg:")]
        assert segments == ["seg:feature_map", "seg:zero_copy_input", "seg:zero_copy_output",
                            "seg:weight"]
        graph = app.pane("graph")
        graph.table.focus()
        graph.table.move_to("tiny_cnn/relu1")
        await pilot.press("up", "down")
        await settle(pilot)
        assert memory.selected == {"relu1:0"}
        assert memory.query_one("#memory-table").line("relu1:0").tone == "selected"


async def test_the_timeline_draws_stream_and_unit_lanes_and_zooms():
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await press(pilot, "f5")
        timeline = app.pane("timeline")
        names = [lane.name for lane in timeline.current_lanes()]
        assert "s0/rt1" in names and "AI_CORE x8" in names
        assert any("#" in lane.cells for lane in timeline.current_lanes())
        full = timeline.window()
        timeline.focus_main()
        await press(pilot, "plus")
        start, end = timeline.window()
        assert end - start == (full[1] - full[0]) // 2


async def test_selecting_an_sqe_shows_the_line_of_the_host_program_that_submitted_it():
    app = make_app(f"{DEVRUN}/producer_consumer.py")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe", "continue")
        source = app.pane("source")
        assert source.data.frames and source.data.frames[0].line > 0
        await press(pilot, "3")
        await press(pilot, "3")                 # maximise, restore: the grid has the focus
        grid = app.query_one("#stream-grid")
        grid.focus()
        await press(pilot, "down")
        column, row = grid.selected()
        stream, pos = column.stream, column.window[row].pos
        line = source.marked
        assert source.table.cursor_key == f"{stream}:{pos}"
        program = (ROOT / DEVRUN / "producer_consumer.py").read_text().splitlines()
        assert "acl.rt." in program[line - 1] and f"line {line}" in source.said


async def test_the_source_pane_lists_what_the_script_submitted_and_marks_each_row_s_line():
    app = make_app(f"{DEVRUN}/deadlock.py")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break fault deadlock", "continue")
        await press(pilot, "6")
        source = app.pane("source")
        # Relu, the wait, Neg, and the deadlock the run is parked at
        assert source.table.visible_keys == ["1:0", "2:0", "2:1", "fault:0"]
        assert app.focused is source.table
        # the stop is on stream 2 (its wait blocks): the device pane selected it at its head,
        # the wait for event 0, and this pane followed
        assert source.table.cursor_key == "2:0"
        program = (ROOT / DEVRUN / "deadlock.py").read_text().splitlines()
        assert "stream_wait_event" in program[source.marked - 1]
        await press(pilot, "down")               # the Neg behind the wait
        assert 'launch_kernel("Neg"' in program[source.marked - 1]
        assert source.table.line("2:0").cells[-1].startswith("stream_wait_event")
        fault = source.table.line("fault:0")     # the fault, met at the synchronize
        assert fault is not None and "deadlock" in fault.cells[-1]
        assert "synchronize_stream" in program[int(fault.cells[0]) - 1]


async def test_a_lesson_plays_its_narration_and_waits_at_pause():
    lesson = ROOT / "sample_models" / "lessons" / "04_passes_of_the_tiny_cnn.gwb"
    app = make_app(lesson=lesson)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.lesson_paused
        panel = app.query_one("#lesson")
        assert "ConstantFoldingPass runs in Prepare's InferShapeForPreprocess" in panel.text.plain
        assert "go on" not in panel.text.plain and "space" in panel.border_subtitle
        assert "node passes of the original graph" not in panel.text.plain
        await press(pilot, "space")   # finish, diff: the diff in the passes pane, a pause
        assert app.lesson_paused and app.current == "passes"
        assert "node passes of the original graph" not in panel.text.plain
        await press(pilot, "space")
        assert "node passes of the original graph" in panel.text.plain
        assert "IdentityPass" in log_text(app)


async def test_f8_goes_back_one_pass_and_shows_no_step_changes():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10", "f10")
        tick = app.views.debugger.tick
        await press(pilot, "f8")
        assert app.views.debugger.tick < tick
        assert app.query_one("#status").status.reason.startswith("reverse-step")
        assert app.pane("graph").table.marks == {}
        assert "re-executed" in app.pane("graph").summary



async def test_if_bodies_open_in_place_under_their_node(tmp_path):
    app = make_app(if_model(tmp_path / "if.onnx"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 2")
        table = app.pane("graph").table
        keys = table.visible_keys
        branch = keys.index("ifg/branch")
        then_body = keys.index("graph:branch_then_branch")
        else_body = keys.index("graph:branch_else_branch")
        assert branch < then_body < keys.index("branch_then_branch/then_relu") < else_body
        assert table.line("graph:branch_then_branch").parent == "graph:ifg"
        table.focus()
        table.move_to("graph:branch_then_branch")
        await press(pilot, "enter")          # a body folds like any group
        assert "branch_then_branch/then_relu" not in table.visible_keys


def _cut_names(table) -> list[str]:
    """The name cells (a node's, type, engine, pass) of the rows on screen that the table cuts."""
    keys = table.visible_keys
    cut = []
    for y in range(1, table.size.height):
        if table.top + y - 1 >= len(keys):
            break
        line = table.line(keys[table.top + y - 1])
        if not line.group:
            shown = table.render_line(y).text
            cut += [cell for column, cell in zip(table.columns, line.cells)
                    if column.name and cell not in shown]
    return cut


async def test_a_cut_cell_ends_in_an_ellipsis_not_a_shorter_value():
    """At 80 columns the offset column is narrower than a weight's address: 0xc00000a00 showed
    as 0xc00000, an address of its own (and the next weight's, 0xc00000c00, the same)."""
    app = make_app(TINY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await run(pilot, "run-to distribute")
        table = app.pane("graph").table
        offset = COLUMNS.index("offset")
        start = sum(table._widths_for(table.size.width)[:offset]) + offset
        line = table.line("tiny_cnn/right.w")
        table.move_to(line.key)
        shown = table.render_line(table.visible_keys.index(line.key) - table.top + 1).text
        cell = shown[start:].split(" ")[0].split(ARROW)[-1]   # past a changed cell's old value
        assert line.cells[offset] == "0xc00000a00" and cell != line.cells[offset]
        assert cell.endswith("…") and line.cells[offset].startswith(cell[:-1])


@pytest.mark.parametrize("size", [(200, 60), (80, 24)])
async def test_names_are_whole_where_the_panes_have_room(size):
    """The columns follow the width a pane gets: at 200 columns the graph and passes panes sit
    side by side with every type, engine and pass name whole; at 80 each pane in turn. A node
    name longer than the pane can hold (ReshapeRecoveryPass's, 35 letters) gives way first: only
    names longer than every whole one are cut."""
    app = make_app(TINY)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await run(pilot, "run-to pass NodeStreamUpdatePass")
        graph, passes = app.pane("graph").table, app.pane("passes").table
        if size[0] < 160:
            await press(pilot, "2")   # one pane at a time: the passes
        longest = next(k for k in passes.visible_keys
                       if passes.line(k).cells[0] == "CommonSubexpressionEliminationPass")
        passes.move_to(longest)   # on screen
        assert longest in passes.visible_keys[passes.top:passes.top + passes.size.height - 1]
        assert _cut_names(passes) == []
        if size[0] < 160:
            await press(pilot, "1")
        engines = {graph.line(k).cells[2] for k in graph.visible_keys if graph.line(k).cells[2:]}
        assert {"DNN_VM_GE_LOCAL", "AIcoreEngine"} <= engines
        cut = _cut_names(graph)
        on_screen = [graph.line(k).cells[0] for k in graph.visible_keys[graph.top:]
                     [:graph.size.height - 1] if not graph.line(k).group]
        assert set(cut) <= set(on_screen)   # the type and engine cells are all whole
        assert all(len(name) > len(whole) for name in cut for whole in on_screen
                   if whole not in cut)


async def test_the_key_of_a_pane_the_target_has_not_says_so_and_leaves_the_screen_as_it_was():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "6")   # the source pane: a host program's
        assert app.current == "graph" and not app.pane("source").display
        (said,) = [n.message for n in app._notifications]
        assert said == "the Source pane has nothing to show for ONNX models"
        await press(pilot, "2")
        assert app.current == "passes"


async def test_a_unit_lane_s_busy_share_is_per_core_and_names_how_many_cores():
    """Zoomed in to where two streams' Vector kernels overlap, the AI_VECTOR lane said 200%: its
    busy time is summed over the unit's cores. It says the share per core, with the core count
    named (the program has ended and its device is gone: the count is the one it ran on)."""
    app = make_app(f"{DEVRUN}/missing_wait.py")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f5", "5")
        timeline = app.pane("timeline")
        core = [s for s in timeline.data.timeline.slices if s[2] == 1]   # unit 1: the Vector
        a, b = next((a, b) for a in core for b in core
                    if a[1] != b[1] and a[6] < b[7] and b[6] < a[7])   # two streams at once
        timeline.start, timeline.span = max(a[6], b[6]), min(a[7], b[7]) - max(a[6], b[6])
        timeline.redraw()
        lane = next(lane for lane in timeline.current_lanes()
                    if lane.name.startswith("AI_VECTOR"))
        assert lane.name == "AI_VECTOR x8" and lane.cores == 8
        assert lane.busy_ns == 2 * timeline.span   # both cores busy all the window: 2 x 100%
        line = next("".join(text for text, _ in line)
                    for line in app.query_one("#timeline-text").lines
                    if line[0][0].startswith("AI_VECTOR x8"))
        assert line.rstrip().endswith(" 25%"), line   # 2 of 8 cores
        assert all(lane.busy_percent(*timeline.window()) <= 100
                   for lane in timeline.current_lanes())
