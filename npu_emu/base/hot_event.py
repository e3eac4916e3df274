"""A faster constructor for the trace events emitted for every SQE, and for the compile's per-node
and per-edit events (NodeVisited, the graph's edits, pass begin/end); and for any other frozen
slotted dataclass made on a hot path (GE's GeTensorDesc, one per desc InferShape writes).

A frozen dataclass's generated ``__init__`` stores each field through ``object.__setattr__``;
storing through the slots' own descriptors is about a third cheaper, which is most of what an
observer handed events (the step gate, the timeline) costs the scheduler per SQE; a recorder is
handed records and builds none (docs/architecture.md, hot loops). The class stays a
frozen dataclass: equality, repr, ``describe()`` and the refusal of later assignment are unchanged.
"""
from __future__ import annotations

from dataclasses import fields
from typing import TypeVar

T = TypeVar("T", bound=type)


def hot_event(cls: T) -> T:
    names = [f.name for f in fields(cls)]
    namespace: dict[str, object] = {}
    for i, name in enumerate(names):
        owner = next(c for c in cls.__mro__ if name in vars(c))
        namespace[f"_set{i}"] = vars(owner)[name].__set__
    body = "\n".join(f"    _set{i}(self, {name})" for i, name in enumerate(names))
    exec(f"def __init__(self, {', '.join(names)}):\n{body}\n", namespace)
    cls.__init__ = namespace["__init__"]
    return cls
