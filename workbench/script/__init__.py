"""Record and replay: .gwb scripts are command lines (plus `say` and `pause` for lessons)."""
from workbench.script.replay import Replay, replay

__all__ = ["Replay", "replay"]
