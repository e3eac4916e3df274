"""GE's Session API: add graphs, compile them, run them on the emulated device (session.py); the
steps every face drives, one at a time or in a row (graph_manager.py)."""
from ge_core.session.graph_manager import GraphManager, LoadedModel, RunPlan
from ge_core.session.session import CompiledGraphSummary, Session

__all__ = ["CompiledGraphSummary", "GraphManager", "LoadedModel", "RunPlan", "Session"]
