"""The debugger names GE's and the runtime's trace events and task types by their classes and
enums, never by a string: a rename there breaks the import here, not silently a breakpoint that
never hits. The names come from modules that load neither GE's runtime nor its passes
(ge_core/events.py, ge_core/model_task_type.py, npu_emu/scheduler/events.py), so naming them
costs the debugger's start nothing."""
import ast
import subprocess
import sys
from pathlib import Path

from ge_core.model_task_type import ModelTaskType
from npu_emu.scheduler.task import TaskType

ROOT = Path(__file__).resolve().parents[2]


def _trace_event_names() -> set[str]:
    return {node.name for layer in ("ge_core", "npu_emu") for path in (ROOT / layer).rglob("*.py")
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ClassDef) and "TraceEvent" in map(ast.unparse, node.bases)}


def _strings(path: Path) -> list[ast.Constant]:
    """String constants, docstrings left out."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_no_debugger_module_names_an_event_or_a_task_type_by_a_string() -> None:
    events = _trace_event_names()
    assert {"TaskDistributed", "ModelUnloaded", "FusionMatched", "SqeCompleted"} <= events
    types = {name for enum in (ModelTaskType, TaskType) for m in enum
             for name in (m.name, m.name.lower())}
    literal = [f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
               for path in sorted((ROOT / "workbench" / "debugger").rglob("*.py"))
               for node in _strings(path) if node.value in events | types]
    assert literal == []


def test_the_app_starts_without_ge_runtime() -> None:
    code = ("import sys, workbench.tui.app\n"
            "print([m for m in sys.modules if m.startswith('ge_core.runtime')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    assert out.strip() == "[]"
