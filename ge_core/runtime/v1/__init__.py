"""GE's v1 runtime (runtime/v1 in GE): static models sunk to the device.

    GraphLoader    load facade -> ModelManager (per World) -> DavinciModel.init in GE's stages;
                   a model with unknown dims is loaded as a HybridDavinciModel (../hybrid)
    GraphExecutor  execute facade: NnExecute, the Run loop (DataInputer), on a caller's stream
    ModelExecutor  a session's graphs: lazy loading, CheckAndReleaseMemory / Stream / Event
"""
from ge_core.runtime.v1.davinci_model import DavinciModel
from ge_core.runtime.v1.graph_executor import GraphExecutor
from ge_core.runtime.v1.graph_loader import GraphLoader
from ge_core.runtime.v1.model_executor import GraphNode, ModelExecutor
from ge_core.runtime.v1.model_manager import ModelManager

__all__ = ["DavinciModel", "GraphExecutor", "GraphLoader", "GraphNode", "ModelExecutor",
           "ModelManager"]
