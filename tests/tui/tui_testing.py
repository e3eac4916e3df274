"""Driving the workbench app headless: open it on a target, run keys and command lines, and wait
until the worker has answered and the screen has taken the answer."""
from __future__ import annotations

from pathlib import Path

from workbench.tui.app import Opening, WorkbenchApp
from workbench.tui.headless import settle

ROOT = Path(__file__).resolve().parents[2]
TINY = "sample_models/tiny_cnn.onnx"
DEVRUN = "sample_models/devrun"


def make_app(target: str | None = None, lesson: Path | None = None,
             allow_programs: bool = False) -> WorkbenchApp:
    opening = Opening(lesson.parent if lesson else ROOT, target=target, lesson=lesson,
                      allow_programs=allow_programs)
    return WorkbenchApp(opening, history_file=None, deterministic=True)


async def run(pilot, *lines: str) -> None:
    for line in lines:
        pilot.app.run_line(line)
        await settle(pilot)
        _no_internal_error(pilot.app)


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
        _no_internal_error(pilot.app)


def _no_internal_error(app) -> None:
    """A view's bug shows as a line in the log, and the app goes on: so a test must look."""
    broken = [line for line in log_text(app).splitlines() if "internal error" in line]
    assert not broken, broken[0]


def log_text(app) -> str:
    return "\n".join(line.text for line in app.log_pane.text_log.lines)


def if_model(path: Path, before: bool = False) -> str:
    """An If whose then body is a Relu and else body a Neg; ``before``: a Relu before it and an
    Add after (a graph the compile edits around the If). Saved at ``path``."""
    import onnx
    from onnx import TensorProto, helper

    def body(op: str, name: str):
        out = helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [4])
        return helper.make_graph([helper.make_node(op, ["x"], [f"{name}_out"], name)],
                                 f"{name}_body", [], [out])
    branch = helper.make_node("If", ["c"], ["y"], "branch", then_branch=body("Relu", "then_relu"),
                              else_branch=body("Neg", "else_neg"))
    nodes, out = [branch], "y"
    if before:
        nodes = [helper.make_node("Relu", ["x"], ["r"], "pre"), branch,
                 helper.make_node("Add", ["y", "r"], ["z"], "post")]
        out = "z"
    graph = helper.make_graph(nodes, "ifg",
                              [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                               helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, [4])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return str(path)
