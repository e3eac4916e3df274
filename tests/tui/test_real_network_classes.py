"""The three real-network failure classes of issue 25 in the app: an If whose untaken branch
cannot be shape-inferred runs its taken branch to the end, and stops at the branch's fault,
naming it, when it is taken; `--autofuse` on a box-decoding head and gears on a model that
computes its shapes run to the end. Each is a model the exec and debugger tests also use."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from control_flow_testing import squeezing_if_model  # noqa: E402
from tui_testing import log_text, make_app, run, settle  # noqa: E402
from workbench.tui.status_bar import StatusBar  # noqa: E402

pytestmark = pytest.mark.asyncio
SQUEEZE_ERROR = "node Squeeze_1 (Squeeze): cannot squeeze axes [2] of [1, 128, 2]"


@pytest.fixture
def squeezing_if(tmp_path):
    onnx.save(squeezing_if_model(), tmp_path / "sq_if.onnx")
    np.save(tmp_path / "x.npy", np.random.default_rng(0).standard_normal((1, 128, 2))
            .astype(np.float32))
    for cond in (True, False):
        np.save(tmp_path / f"c{int(cond)}.npy", np.array(cond))
    return tmp_path


@pytest.mark.parametrize("cond", [True, False])
async def test_an_if_whose_untaken_branch_fails_infershape_runs_in_the_app(squeezing_if, cond):
    app = make_app(str(squeezing_if / "sq_if.onnx"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, f"set input x={squeezing_if / 'x.npy'},c={squeezing_if}/c{int(cond)}.npy",
                  "continue")
        text = log_text(app)
        if cond:
            assert "finished at tick" in text and "error" not in app.query_one(StatusBar).error
        else:   # the sunk FailedBranch task faults when the branch is taken: a stop, named
            assert "stopped at tick" in text and SQUEEZE_ERROR in text


async def test_gears_on_a_model_that_computes_its_shapes_sink_in_the_app(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
    from test_gewb_exec_gears_computed_shapes import reshape_by_shape_model
    onnx.save(reshape_by_shape_model(), tmp_path / "m.onnx")
    np.save(tmp_path / "x.npy", np.ones((2, 2, 3, 4), np.float32))
    app = make_app(str(tmp_path / "m.onnx"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "set input-shape x:-1,2,3,4", "set dynamic-batch-size 1,2,4",
                  f"set input x={tmp_path / 'x.npy'}", "continue", "info models")
        text = log_text(app)
        assert "finished at tick" in text and app.query_one(StatusBar).error == ""
        assert "loaded" in text   # sunk: a runtime model, not a hybrid run


async def test_autofuse_on_a_box_decoding_head_runs_in_the_app(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autofuse"))
    from test_auto_fuse_pass import box_decoding_model
    onnx.save(box_decoding_model(), tmp_path / "head.onnx")
    app = make_app(str(tmp_path / "head.onnx"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "set autofuse on", "continue")
        text = log_text(app)
        assert "finished at tick" in text and app.query_one(StatusBar).error == ""
        assert "cycle" not in text
        assert any(n.type == "AscBackend" for n in app.views.debugger.run.state.graph)
