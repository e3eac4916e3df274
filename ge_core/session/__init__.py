"""GE's Session API: add graphs, compile them, run them on the emulated device (session.py)."""
from ge_core.session.session import CompiledGraphSummary, Session

__all__ = ["CompiledGraphSummary", "Session"]
