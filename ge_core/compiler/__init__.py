"""GE's compile pipeline: prepare, three optimisation stages, engine placement and partition.

The names below load with their module on first use (PEP 562), so importing a submodule for a
constant (a stream option's default) does not load the whole pipeline and its passes."""
from ge_core.lazy_names import lazy_names

_WHERE = {"CompileOptions": "compile_pipeline", "CompilePipeline": "compile_pipeline",
          "CompileResult": "compile_pipeline", "compile_graph": "compile_pipeline",
          "DumpConfig": "graph_dumper"}

__all__ = sorted(_WHERE)

__getattr__ = lazy_names(__name__, _WHERE)
