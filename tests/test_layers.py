"""The import check: imports only point down, workbench -> ge_core -> npu_emu, and ge_core's
modules import one another without a cycle.

Every import counts, wherever it is written: at module level, lazily inside a function, or by
name through ``importlib.import_module`` of a constant. Imports under ``if TYPE_CHECKING:``
count for the layers (naming a type of a layer above is knowing that layer) but not for cycles
(they never run); a cycle through a lazy import is still a cycle.

The one import of a layer above that is allowed is the registration hook,
npu_emu/acl/model_loader.py: the emulated libascendcl imports GE's loader module by name (the
dlopen of GE's runtime) and registers the loader class it exports; GE's managers then reach their
instance through the current World (npu_emu/world.py), which needs no hook.
"""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("npu_emu", "ge_core", "workbench")   # bottom to top
HOOK = ("npu_emu.acl.model_loader", "ge_core.runtime.acl_model_loader")
IMPORT_BY_NAME = {"importlib.import_module", "import_module", "__import__"}


@dataclass(frozen=True)
class Import:
    target: str          # dotted, as far as it was written: a module or a name in one
    line: int
    typing_only: bool    # under ``if TYPE_CHECKING:``
    lazy: bool = False   # inside a function: runs when called, not when the module is imported


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool) -> list[Import]:
    tree = ast.parse(source)
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for stmt in node.body for n in ast.walk(stmt)}
    constants = {target.id: node.value.value for node in tree.body
                 if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                 and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}
    lazy = {id(n) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            for n in ast.walk(node) if n is not node}
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        for target in _targets(node, package, constants):
            found.append(Import(target, node.lineno, id(node) in typing_only, id(node) in lazy))
    return found


def _targets(node: ast.AST, package: str, constants: dict[str, str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
            base = ".".join(anchor + ([base] if base else []))
        return [f"{base}.{alias.name}" for alias in node.names]
    if (isinstance(node, ast.Call) and ast.unparse(node.func) in IMPORT_BY_NAME
            and node.args):
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return [arg.value]
        if isinstance(arg, ast.Name) and arg.id in constants:
            return [constants[arg.id]]
    return []


@functools.cache
def _tree() -> dict[str, list[Import]]:
    """Every module of the three layers -> its imports, resolved to the modules they load."""
    paths = {module_name(p): p for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))}

    def resolve(target: str) -> str | None:
        while target and target not in paths:   # ``from m import name``: the module m
            target = target.rpartition(".")[0]
        return target or None

    graph = {}
    for module, path in paths.items():
        found = imports_of(path.read_text(), module, path.name == "__init__.py")
        graph[module] = [Import(t, i.line, i.typing_only, i.lazy) for i in found
                         if (t := resolve(i.target)) is not None and t != module]
    return graph


def _rank(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def _ge_core_graph(node_of=lambda m: m) -> nx.DiGraph:
    g = nx.DiGraph()
    for module, found in _tree().items():
        if module.startswith("ge_core"):
            g.add_node(node_of(module))
            g.add_edges_from((node_of(module), node_of(i.target)) for i in found
                             if i.target.startswith("ge_core") and not i.typing_only
                             and node_of(module) != node_of(i.target))
    return g


def _cycles(g: nx.DiGraph) -> list[str]:
    """One cycle of each strongly connected knot, as ``a -> b -> a``."""
    knots = [c for c in nx.strongly_connected_components(g) if len(c) > 1]
    return [" -> ".join([a for a, _ in nx.find_cycle(g.subgraph(c))] +
                        [nx.find_cycle(g.subgraph(c))[0][0]]) for c in knots]


def test_the_check_sees_lazy_by_name_relative_and_typing_only_imports():
    source = ("import importlib\nfrom typing import TYPE_CHECKING\nGE = 'ge_core.runtime'\n"
              "if TYPE_CHECKING:\n    from workbench.cli import UserError\n"
              "def load():\n    from ge_core.graph import ComputeGraph\n"
              "    importlib.import_module(GE)\n    from .sibling import thing\n")
    found = {(i.target, i.typing_only) for i in imports_of(source, "npu_emu.acl.x", False)}
    assert found == {("importlib", False), ("typing.TYPE_CHECKING", False),
                     ("workbench.cli.UserError", True), ("ge_core.graph.ComputeGraph", False),
                     ("ge_core.runtime", False), ("npu_emu.acl.sibling.thing", False)}
    assert {i.target for i in imports_of(source, "npu_emu.acl.x", False) if i.lazy} == {
        "ge_core.graph.ComputeGraph", "ge_core.runtime", "npu_emu.acl.sibling.thing"}
    in_package = imports_of("from . import y\nfrom ..z import w\n", "npu_emu.acl", True)
    assert [i.target for i in in_package] == ["npu_emu.acl.y", "npu_emu.z.w"]


def test_no_module_imports_a_layer_above_it_but_the_registration_hook():
    upward = sorted({(module, i.target): i.line for module, found in _tree().items()
                     for i in found if _rank(i.target) > _rank(module)}.items())
    assert [edge for edge, _ in upward] == [HOOK], "\n".join(
        f"{module} (line {line}) imports {target}, a layer above it"
        for (module, target), line in upward if (module, target) != HOOK)


def test_no_import_cycle_among_ge_core_modules():
    assert _cycles(_ge_core_graph()) == []


def test_no_import_cycle_among_ge_core_packages():
    """One level up: ge_core's packages (graph, passes, compiler, om, runtime, ...)."""
    assert _cycles(_ge_core_graph(lambda m: ".".join(m.split(".")[:2]))) == []


# -- inside npu_emu: floors, seed 003's layers (docs/architecture.md) ---------------------------
# Bottom to top. Within a floor modules import one another without a cycle; a floor imports only
# the floors below it, TYPE_CHECKING imports included: a floor above is reached through the
# protocols the lower floor declares (npu_emu/scheduler/protocols.py, npu_emu/core/links.py).
NPU_EMU_FLOORS = (
    ("npu_emu.base",),                                  # errors, the trace bus
    ("npu_emu.driver", "npu_emu.op_impl"),              # device memory; numpy op implementations
    ("npu_emu.scheduler",),                             # tasks, SQ/CQ, the TS and its events
    ("npu_emu.checkers",),                              # deadlock report, race detector
    ("npu_emu.core",),                                  # device, context, stream, event, ...
    ("npu_emu.feature",),                               # model, AutoSplit, capture, fusion, HCCL
    ("npu_emu.runtime", "npu_emu.world", "npu_emu.timeline", "npu_emu"),   # the process
    ("npu_emu.snapshot.snapshot",),                              # saves all of the above
    ("npu_emu.acl",),                                   # the pyACL facade
)

# -- inside workbench: cli -> tui / repl -> commands -> script -> debugger -----------------------
# A floor imports the floors below it; sibling packages on one floor (tui, repl, conformance) do
# not import one another.
WORKBENCH_FLOORS = (
    ("workbench.model_inputs", "workbench.output_path", "workbench.tensor_files",
     "workbench.terminal_text", "workbench.sigint", "workbench"),   # helpers every floor uses
    ("workbench.debugger",),
    ("workbench.script",),     # the one .gwb player, consent and access: below the commands
    ("workbench.commands", "workbench.serve"),
    ("workbench.tui", "workbench.repl", "workbench.conformance"),
    ("workbench.cli",),
)
# Known violations another change is removing: remove an entry when its import goes. A new
# violation fails the test.
WORKBENCH_KNOWN: set[tuple[str, str]] = set()


def _floor(module: str, floors: tuple[tuple[str, ...], ...]) -> tuple[int, str]:
    """(floor, package): the most specific prefix that names ``module``."""
    best = max(((i, p) for i, ps in enumerate(floors) for p in ps
                if module == p or module.startswith(p + ".")), key=lambda ip: len(ip[1]))
    return best


def _floor_violations(edges: list[tuple[str, str]], floors: tuple[tuple[str, ...], ...],
                     siblings_apart: bool = False) -> list[tuple[str, str]]:
    """The (module, target) edges that go up a floor or, with ``siblings_apart``, across to a
    sibling package on the same floor."""
    found = set()
    for module, target in edges:
        (here, package), (there, other) = _floor(module, floors), _floor(target, floors)
        if there > here or (siblings_apart and there == here and other != package
                            and package not in floors[0]):
            found.add((module, target))
    return sorted(found)


def _edges(layer: str) -> list[tuple[str, str]]:
    return [(module, i.target) for module, found in _tree().items() if module.startswith(layer)
            for i in found if i.target.startswith(layer)]


def test_npu_emu_floors_import_only_floors_below() -> None:
    assert _floor_violations(_edges("npu_emu"), NPU_EMU_FLOORS) == []


def test_no_import_cycle_among_npu_emu_modules_typing_included() -> None:
    g = nx.DiGraph()
    for module, found in _tree().items():
        if module.startswith("npu_emu"):
            g.add_node(module)
            g.add_edges_from((module, i.target) for i in found
                             if i.target.startswith("npu_emu") and i.target != module)
    assert _cycles(g) == []


def test_workbench_floors_point_down_but_the_known_violations() -> None:
    found = set(_floor_violations(_edges("workbench"), WORKBENCH_FLOORS, siblings_apart=True))
    assert sorted(found - WORKBENCH_KNOWN) == []
    assert sorted(WORKBENCH_KNOWN - found) == [], "a known violation is gone: drop it from the list"


def test_the_floor_check_sees_an_upward_and_a_sibling_import() -> None:
    floors = (("p.low",), ("p.a", "p.b"), ("p.top",))
    edges = [("p.top.x", "p.a.y"), ("p.a.y", "p.low"), ("p.a.y", "p.a.z"),    # down, within
             ("p.low.u", "p.b"), ("p.a.y", "p.b.w")]                          # up, sideways
    assert _floor_violations(edges, floors) == [("p.low.u", "p.b")]
    assert _floor_violations(edges, floors, siblings_apart=True) == [("p.a.y", "p.b.w"),
                                                                     ("p.low.u", "p.b")]
