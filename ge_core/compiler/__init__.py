"""GE's compile pipeline: prepare, three optimisation stages, engine placement and partition."""
from ge_core.compiler.compile_pipeline import (CompileOptions, CompilePipeline, CompileResult,
                                               compile_graph)
from ge_core.compiler.graph_dumper import DumpConfig

__all__ = ["CompileOptions", "CompilePipeline", "CompileResult", "DumpConfig", "compile_graph"]
