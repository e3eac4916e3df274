"""What kind of thing a target is, and what it can show: modules ask for a capability ("has a
graph"), never compare a display string. Cheap to import: the app's panes read it at startup."""
from __future__ import annotations

from enum import Enum


class Capability(Enum):
    GRAPH = "has a graph"          # a ComputeGraph to show: the graph, passes and memory panes
    DEVICE = "has a device"        # runs on the emulated NPU: device, stream and trace views
    BUILD = "is built here"        # compiled and built in the session: passes, a memory plan
    SOURCE = "runs its own code"   # Python run with the user's rights: its source, frames


class TargetKind(Enum):
    ONNX_MODEL = ("ONNX model", frozenset({Capability.GRAPH, Capability.DEVICE,
                                           Capability.BUILD}))
    OM_MODEL = ("OM model", frozenset({Capability.GRAPH, Capability.DEVICE}))
    HOST_PROGRAM = ("host program", frozenset({Capability.DEVICE, Capability.SOURCE}))

    def __init__(self, label: str, capabilities: frozenset[Capability]) -> None:
        self.label = label                 # what the screens say
        self.capabilities = capabilities

    def has(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def __str__(self) -> str:
        return self.label
