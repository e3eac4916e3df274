"""GE's compile pipeline: prepare, three optimisation stages, engine placement and partition.

The names below load with their module on first use (PEP 562), so importing a submodule for a
constant (a stream option's default) does not load the whole pipeline and its passes."""
from importlib import import_module

_WHERE = {"CompileOptions": "compile_pipeline", "CompilePipeline": "compile_pipeline",
          "CompileResult": "compile_pipeline", "compile_graph": "compile_pipeline",
          "DumpConfig": "graph_dumper"}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
