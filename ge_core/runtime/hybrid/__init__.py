"""Hybrid execution: models with unknown dims, host-scheduled node by node on the device.

Entry point (what `gewb exec --mode hybrid` calls):

    execute_hybrid(graph, feeds, stream=None) -> ExecuteResult
        graph   a compiled ComputeGraph (unknown dims allowed; it is not built)
        feeds   {input name: array} or arrays in input order; each execution may feed new shapes
        -> ExecuteResult(outputs={output name: array}, emulated_ns=device time of the run)

    It runs in the current World's runtime: a HybridDavinciModel is initialised (registered in
    the world's ModelManager.hybrid_model_map), executed once and unloaded. Keep a
    HybridDavinciModel to execute many times with different shapes.
"""
from __future__ import annotations

import contextlib
from typing import Any, Mapping, Sequence

from ge_core.graph import ComputeGraph
from ge_core.runtime.hybrid.hybrid_davinci_model import (HYBRID_LOWERING, HybridDavinciModel,
                                                         is_need_hybrid_load)
from ge_core.runtime.v2 import ExecuteResult
from npu_emu.stream import Stream


def execute_hybrid(graph: ComputeGraph, feeds: Mapping[str, Any] | Sequence[Any],
                   stream: Stream | None = None) -> ExecuteResult:
    model = HybridDavinciModel(graph)
    model.init(stream)
    try:
        result = model.execute(feeds)
    except Exception:
        # A failed execute leaves blocks allocated, so unloading fails too: the execute's error
        # is the one that names the node at fault.
        with contextlib.suppress(Exception):
            model.unload()
        raise
    model.unload()
    return result


__all__ = ["HYBRID_LOWERING", "HybridDavinciModel", "execute_hybrid", "is_need_hybrid_load"]
