"""The debugger on a model with a symbolic batch and an If: stepped stage by stage to the end it
is loaded hybrid (no static build) and its If runs the branch taken on the device; sized by `set
input` it is built and sunk; both give onnxruntime's outputs; reverse stepping re-runs it."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from debugger_testing import ROOT, debugger, finished, stopped
from ge_core.executor import random_feeds
from workbench.debugger.outcomes import Finished
from workbench.debugger.views.model_views import ge_models

sys.path.insert(0, str(ROOT / "tests" / "runtime"))
from control_flow_testing import (dynamic_if_model, onnxruntime_outputs,  # noqa: E402
                                  saved_if_case)


@pytest.fixture
def files(tmp_path):
    """The model, its inputs as NAME=FILE.npy,... (batch 3, then branch), onnxruntime's z."""
    path, inputs, want = saved_if_case(tmp_path, 3, True)
    return path, ",".join(f"{name}={file}" for name, file in inputs.items()), want


def _stages_to_the_end(d) -> list[str]:
    wheres = []
    while not isinstance((out := d.step("stage"))[-1], Finished):
        wheres.append(stopped(out).where)
    return wheres


@pytest.mark.parametrize("sized", [False, True])
def test_stepping_to_the_end_runs_the_model_as_model_manager_chose(files, sized):
    path, given, want = files
    d = debugger(str(path), input=given if sized else given.split(",", 1)[1])   # or no x0
    try:
        wheres = _stages_to_the_end(d)
        assert ("build > GenTask" in wheres) is sized    # a hybrid model has no static build
        assert ("execute > Main" in wheres) is not sized  # v2's Main: the hybrid execution
        assert ge_models(d.run.world).rows[0][1] == ("static" if sized else "hybrid")
        z = d.run.state.outputs["z"]
        if not sized:   # x0 seeded random, batch 1 (the symbolic dim's default)
            feeds = {**random_feeds(d.run.state.graph, 0), "c": np.load(path.parent / "c.npy"),
                     "w": np.load(path.parent / "w.npy")}
            assert feeds["x0"].shape == (1, 3)
            want = onnxruntime_outputs(dynamic_if_model(), feeds)["z"]
        np.testing.assert_allclose(z, want, rtol=1e-6)
    finally:
        d.close()


def test_sqe_breakpoints_stop_on_the_branch_taken_and_reverse_steps_back(files):
    path, given, want = files
    d = debugger(str(path), input=given.split(",", 1)[1])   # c true: the then branch's Add
    try:
        d.add_breakpoint(["sqe"])
        hits = [stopped(d.cont()) for _ in range(3)]
        assert [h.where.rsplit(" ", 1)[1] for h in hits] == ["Relu#0", "Add#1", "Neg#2"]
        assert all(h.where.startswith("execute > Main > stream ") and "rt0 > SQE " in h.where
                   for h in hits)
        end = finished(d.cont())
        assert end.summary[0].startswith("output z: f32[1,3]")
        d.granularity = "sqe"
        assert stopped(d.reverse_step()).where == hits[-1].where
    finally:
        d.close()
