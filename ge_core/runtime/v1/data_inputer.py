"""DataInputer: the queue of input data a model's Run loop consumes (GE's DataInputer).

Each item carries the inputs of one execution and the callback to report it to (GE's
ModelListener::OnComputeDone: status and outputs); an end-of-sequence item tells the loop the
stream of data has ended, which it reports with 507005 (kEndOfSequence).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

Outputs = dict[str, np.ndarray]
Callback = Callable[[int, Outputs], None]
Inputs = Sequence[Any] | Mapping[str, Any]   # host arrays or DeviceBuffers


@dataclass(frozen=True)
class InputData:
    index: int                      # GE's data index: the order items were pushed in
    inputs: Inputs
    callback: Callback | None
    end_of_sequence: bool = False


class DataInputer:
    def __init__(self) -> None:
        self._queue: deque[InputData] = deque()
        self._pushed = 0

    def __len__(self) -> int:
        return len(self._queue)

    def push(self, inputs: Inputs, callback: Callback | None = None) -> int:
        """Queue one execution's inputs; returns its data index."""
        return self._push(inputs, callback, False)

    def push_end_of_sequence(self, callback: Callback | None = None) -> int:
        return self._push((), callback, True)

    def _push(self, inputs: Inputs, callback: Callback | None, eos: bool) -> int:
        item = InputData(self._pushed, inputs, callback, eos)
        self._pushed += 1
        self._queue.append(item)
        return item.index

    def pop(self) -> InputData | None:
        return self._queue.popleft() if self._queue else None
