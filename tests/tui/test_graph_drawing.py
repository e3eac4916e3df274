"""A graph you can see: v draws the selected node's neighbourhood (two hops) as a small DAG
layered by networkx, with box-drawing edges carrying anchor indices, dashed control edges and
boxes coloured by stream."""
from __future__ import annotations

import networkx as nx
import pytest

from workbench.debugger.views.neighbourhood import draw, neighbourhood

from tui_testing import TINY, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


async def test_v_draws_the_neighbourhood_of_the_selected_node_and_follows_the_cursor():
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue")
        graph = app.pane("graph")
        key = next(k for k in graph.table.visible_keys if k.endswith("/residual_add"))
        graph.table.focus()
        graph.table.move_to(key)
        await press(pilot, "v")
        drawing = graph.drawing
        assert drawing is not None and drawing.centre == "residual_add"
        node = next(n for n in app.views.debugger.state.graph.all_nodes()
                    if n.name == "residual_add")
        g = neighbourhood(node)
        producers = {a.peer.owner.name for a in node.in_data_anchors}
        assert producers <= set(g) and nx.is_directed_acyclic_graph(g)
        text = "\n".join(drawing.lines)
        assert "[residual_add:Add]" in text and "▼" in text and "→" in text
        # every edge's producer sits on a row above its consumer (the layering)
        row = {b.node: b.row for b in drawing.boxes}
        assert all(row[s] < row[d] for s, d in g.edges())
        assert any(b.stream is not None for b in drawing.boxes)
        await press(pilot, "down")             # it follows the cursor
        assert graph.drawing.centre != "residual_add"
        await press(pilot, "v")
        assert not graph.query_one("#graph-dag").display


async def test_a_control_edge_is_dashed_and_labelled():
    g = nx.MultiDiGraph()
    g.add_node("a", type="Const", stream=None)
    g.add_node("b", type="Relu", stream=0)
    g.add_edge("a", "b", label="ctrl", control=True)
    lines = draw(g, "a").lines
    assert "┆ctrl" in lines[1] and lines[-2].strip() == "▼"


async def test_edges_that_meet_join_with_the_glyph_of_the_sides_they_take():
    """Two producers into one consumer between them: their turns meet in a ┬ over the
    arrow, not a ┼ (nothing crosses there); a third straight above it does cross: ┼."""
    g = nx.MultiDiGraph()
    for name in ("a", "b"):
        g.add_node(name, type="Const", stream=None)
    g.add_node("d", type="Add", stream=0)
    g.add_edge("a", "d", label="0→0", control=False)
    g.add_edge("b", "d", label="0→1", control=False)
    lines = draw(g, "d").lines
    turn, arrow = lines[2], lines[3]
    assert turn.strip().replace("─", "") == "╰┬╯" and turn[arrow.index("▼")] == "┬"
    g.add_node("c", type="Const", stream=None)   # a third: b, in the middle, is above d
    g.add_edge("c", "d", label="0→2", control=False)
    lines = draw(g, "d").lines
    assert lines[2].strip().replace("─", "") == "╰┼╯" and lines[2][lines[3].index("▼")] == "┼"


async def test_the_filter_survives_enter_on_a_filtered_node_and_enter_in_it_moves_to_the_list():
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue")
        graph = app.pane("graph")
        graph.table.focus()
        await press(pilot, "slash", "r", "e", "l", "u", "enter")
        assert app.focused is graph.table
        shown = [k for k in graph.table.visible_keys if not k.startswith("graph:")]
        assert shown and all("relu" in k.partition("#")[0] for k in shown), shown
        await press(pilot, "enter")        # anchors of the filtered node
        after = [k for k in graph.table.visible_keys if not k.startswith("graph:")]
        assert all("relu" in k.partition("#")[0] for k in after), after
        assert any("#" in k for k in after)   # its anchors are open under it


async def test_a_box_holds_its_whole_name_where_the_pane_has_room_and_is_cut_where_not():
    """ResNet-50's names (gpu_0/res3_0_branch2a_w_0__SHAPE) showed cut to 20 letters in a
    200-column pane with room for four times as much."""
    g = nx.MultiDiGraph()
    long = "gpu_0/res3_0_branch2a_w_0__SHAPE"
    for name in (long, "b"):
        g.add_node(name, type="Const", stream=None)
    g.add_node("d", type="Add", stream=0)
    g.add_edge(long, "d", label="0→0", control=False)
    g.add_edge("b", "d", label="0→1", control=False)
    assert f"[{long}:Const]" in draw(g, "d", room=190).lines[0]
    narrow = draw(g, "d", room=40).lines[0]
    assert long not in narrow and "[gpu_0/res3_0_branch…]" in narrow   # BOX at least


async def test_a_node_name_s_control_characters_are_drawn_escaped():
    """A model's node name with a BEL and a right-to-left override reached the terminal raw
    in the drawing (the table escaped them)."""
    g = nx.MultiDiGraph()
    g.add_node("evil\x07node", type="Relu", stream=0)
    g.add_node("n2\u202etxt", type="Relu", stream=0)
    g.add_edge("evil\x07node", "n2\u202etxt", label="0→0", control=False)
    lines = draw(g, "n2\u202etxt", room=100).lines
    assert all(line.isprintable() for line in lines)
    assert "[evil\\x07node:Relu]" in lines[0] and "[n2\\u202etxt:Relu]" in lines[-1]
