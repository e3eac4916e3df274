"""The floors inside workbench: imports point down, cli -> tui / repl -> commands -> script ->
debugger (and conformance beside it) -> the shared helpers (model_inputs, tensor_files,
output_path). The one .gwb player lives in script, below the command language, so every face
can play a script without script knowing the commands (issue 20)."""
from __future__ import annotations

from test_layers import _tree

FLOORS = {"workbench.cli": 5, "workbench.tui": 4, "workbench.repl": 4, "workbench.commands": 3,
          "workbench.script": 2, "workbench.debugger": 1, "workbench.conformance": 1}


def floor(module: str) -> int:
    return next((n for name, n in FLOORS.items()
                 if module == name or module.startswith(name + ".")), 0)


def test_no_workbench_module_imports_a_floor_above_it():
    upward = [f"{module} (line {i.line}) imports {i.target}"
              for module, found in _tree().items() if module.startswith("workbench")
              for i in found if i.target.startswith("workbench")
              and floor(i.target) > floor(module)]
    assert upward == []


def test_one_face_does_not_import_another():
    """The app and the REPL share what they need through commands (the history file, the quit
    names), not through each other."""
    faces = ("workbench.tui", "workbench.repl")
    crossing = [f"{module} (line {i.line}) imports {i.target}"
                for module, found in _tree().items() for i in found
                for face in faces for other in faces if face != other
                and (module == face or module.startswith(face + "."))
                and (i.target == other or i.target.startswith(other + "."))]
    assert crossing == []
