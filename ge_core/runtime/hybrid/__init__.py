"""Hybrid execution: models with unknown dims, host-scheduled node by node on the device.

GE's ModelManager loads a compiled graph with unknown dims as a HybridDavinciModel
(``ModelManager.load_model``; ``load_hybrid_model`` to choose it for any graph), and
GraphExecutor.execute_graph runs it: each execution may feed new shapes. Keep a
HybridDavinciModel of your own to execute many times without the registry.
"""
from __future__ import annotations

from ge_core.runtime.hybrid.hybrid_davinci_model import HYBRID_LOWERING, HybridDavinciModel

__all__ = ["HYBRID_LOWERING", "HybridDavinciModel"]
