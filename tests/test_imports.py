"""Every module of npu_emu, ge_core and workbench imports on its own, as the first module of a
fresh interpreter (``python -c "import npu_emu.snapshot.snapshot"`` once failed with a circular
import that the whole suite hid, because another test had imported the facade first).

A fresh interpreter per module costs minutes here, so this does the equivalent in one: a circular
import can only fail inside a knot of modules that import one another at import time (a strongly
connected part of the module-level import graph, a package's ``__init__`` counted as imported by
its modules). Modules below a knot never import back into it, so by the time a fresh import enters
the knot, they are loaded whole. One clean interpreter therefore walks the knots from the bottom
up; for each module of a knot it forks a child that imports that module first (everything the knot
needs from below is loaded, nothing of the knot is), then loads the knot itself and goes on.
"""
import json
import subprocess
import sys

import networkx as nx

from test_layers import LAYERS, ROOT, _tree

CHILD = r"""
import importlib, json, os, sys
failed = []
for knot in json.load(sys.stdin):
    for module in knot:
        pid = os.fork()
        if pid == 0:
            try:
                importlib.import_module(module)
            except BaseException as exc:
                print(json.dumps(f"{module}: {type(exc).__name__}: {exc}"), flush=True)
                os._exit(1)
            os._exit(0)
        os.waitpid(pid, 0)
    for module in knot:
        try:
            importlib.import_module(module)
        except BaseException:
            pass   # its own child has said why
"""


def _knots_bottom_up() -> list[list[str]]:
    tree = _tree()
    modules = [m for m in tree if not m.endswith("__main__")]   # __main__ runs the program
    g = nx.DiGraph()
    g.add_nodes_from(modules)
    for module in modules:
        g.add_edges_from((module, i.target) for i in tree[module]
                         if not (i.lazy or i.typing_only) and i.target in g)
        parts = module.split(".")
        g.add_edges_from((module, ".".join(parts[:k])) for k in range(1, len(parts)))
    knots = nx.condensation(g)
    order = reversed(list(nx.topological_sort(knots)))   # what a module imports comes first
    return [sorted(knots.nodes[k]["members"]) for k in order]


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    knots = _knots_bottom_up()
    assert sum(map(len, knots)) > 400 and {m.split(".")[0] for k in knots for m in k} == set(
        LAYERS)
    run = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(knots), text=True,
                         capture_output=True, cwd=ROOT, timeout=600)
    failures = [json.loads(line) for line in run.stdout.splitlines()]
    assert run.returncode == 0 and failures == [], "\n".join(failures) + run.stderr[-2000:]
