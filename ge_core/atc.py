"""ATC, the offline compile: an ONNX file -> an OM file, through the compile cache.

parse -> optimise -> build (GraphManager's steps) -> save. The cache key is the
parsed graph with its constants plus the options that change the build, so compiling the same
model with the same options again reuses the earlier OM and says so.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ge_core.compiler import CompileOptions, CompileResult
from ge_core.compiler.model_builder import BuildOptions, BuildResult
from ge_core.gc_pause import gc_paused
from ge_core.graph import ComputeGraph
from ge_core.om.compile_cache import CompileCache, cache_key
from ge_core.om.om_file import om_bytes
from ge_core.session.graph_manager import GraphManager
from npu_emu.world import current_runtime


@dataclass
class AtcResult:
    graph: ComputeGraph
    compiled: CompileResult | None   # None when the cache answered
    built: BuildResult | None
    om_path: Path | None
    cache_hit: Path | None           # the cache entry reused


def default_cache_dir() -> Path:
    """$GEWB_CACHE_DIR, else $XDG_CACHE_HOME/gewb, else ~/.cache/gewb."""
    if "GEWB_CACHE_DIR" in os.environ:
        return Path(os.environ["GEWB_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gewb"


def atc(graph: ComputeGraph, compile_options: CompileOptions, build_options: BuildOptions,
        out: str | os.PathLike | None = None, cache: CompileCache | None = None) -> AtcResult:
    """Compile and build ``graph``; write the OM to ``out`` if given. A cache is consulted only
    when an OM is wanted and neither an equivalence check nor a graph dump was asked for (those
    must really run); the OM such a compile makes still goes into the cache."""
    out_path = Path(out) if out is not None else None
    use_cache = cache is not None and out_path is not None
    key = cache_key(graph, salt=repr((compile_options.exclude_engines, compile_options.multi_batch,
                                      compile_options.autofuse,
                                      sorted(compile_options.user_input_shapes.items()),
                                      build_options.stream, build_options.memory,
                                      build_options.multi_batch_with_switchn,
                                      build_options.soc_version
                                      or current_runtime().config.soc_version))
                    ) if use_cache else ""
    must_run = compile_options.check_equivalence or compile_options.dump is not None \
        or build_options.dump is not None
    if use_cache and not must_run and (data := cache.get(key)) is not None:
        out_path.write_bytes(data)
        return AtcResult(graph, None, None, out_path, cache.path(key))
    manager = GraphManager(compile_options, build_options, offline=True)
    # one pause of the collector over both (each pauses it itself): the compile's IR, all of it
    # alive, is not scanned between them
    with gc_paused(graph.bus):
        compiled = manager.compile(graph)
        built = manager.build(graph)
    if out_path is not None:
        data = om_bytes(built.ge_model)
        out_path.write_bytes(data)
        if use_cache:
            cache.put(key, data)
    return AtcResult(graph, compiled, built, out_path, None)
