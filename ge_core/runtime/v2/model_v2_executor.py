"""ModelV2Executor: an ExecuteGraph instantiated on one stream and run in GE's three phases.

    load      instantiate Init / Main / DeInit (a context per node over one value table), run
              Init - the allocator, streams, events and weights Main will use - and drop it;
              Main is only prepared
    execute   bind the feeds (and the executor's stream), run Main with the chosen executor
              (sequential or topological), read the outputs
    unload    drop Main, run DeInit, drop it

Each of Init, Main and DeInit runs as a stage on the trace bus (StageBegin / StageEnd named
after it), so a debugger's `step stage` and `where` see "Init", "Main", "DeInit".

Main's kernels launch on the emulated device through npu_emu and Main ends synchronized, so an
execute returns real numbers and the simulated time the device took.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from ge_core.runtime.errors import GeError, ModelInputError
from ge_core.runtime.v2.caching_mem_allocator import CachingMemAllocator
from ge_core.runtime.v2.execute_graph import ExeGraph, ExeNode, ExecuteGraph, SUBGRAPHS
from ge_core.runtime.v2.kernel import KernelContext, get_kernel_func
from ge_core.runtime.v2.kernel.control_kernels import DEADLINE, Deadline
from ge_core.runtime.v2.kernel.control_kernels import EXECUTORS as SUBGRAPH_EXECUTORS
from ge_core.runtime.v2.sequential_executor import RunNode, SequentialExecutor
from ge_core.runtime.v2.topological_executor import TopologicalExecutor
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.base.errors import AclError
from npu_emu.core.device import Device
from npu_emu.core.stream import Stream

EXECUTORS = {e.name: e for e in (SequentialExecutor, TopologicalExecutor)}
Executor = SequentialExecutor | TopologicalExecutor


@dataclass
class ExecuteResult:
    outputs: dict[str, np.ndarray]   # by graph output name, in NetOutput's order
    emulated_ns: int                 # simulated time from the execute's start to its end
    start_ns: int
    end_ns: int


def executor_class(name: str) -> type[Executor]:
    if name not in EXECUTORS:
        raise GeError(f"unknown v2 executor {name!r}; valid: {', '.join(EXECUTORS)}")
    return EXECUTORS[name]


class ModelV2Executor:
    def __init__(self, execute_graph: ExecuteGraph, stream: Stream,
                 executor: str = "sequential") -> None:
        self.graph = execute_graph
        self.stream = stream
        self.executor_cls = executor_class(executor)
        self.values: list[Any] = []
        self.main: Executor | None = None
        self.iterations = 0
        self.state = "created"
        self.deadline = Deadline(execute_graph.name)

    # -- load ---------------------------------------------------------------------------------
    def load(self) -> None:
        if self.state != "created":
            raise GeError(f"ModelV2Executor of {self.graph.name}: load when {self.state}")
        g = self.graph
        self.values = [None] * len(g.value_names)
        for v, value in g.constants.items():
            self.values[v] = value
        self.values[g.own_stream] = self.stream
        with self._stage(g.init):
            SequentialExecutor(self._instantiate(g.init), []).execute()
        self.main = self.executor_cls(self._instantiate(g.main), g.main.dependencies())
        self.state = "loaded"

    @contextmanager
    def _stage(self, graph: ExeGraph) -> Iterator[None]:
        """Init, Main or DeInit running: a stage on the trace bus, as DavinciModel's are."""
        bus = self.stream.device.runtime.bus
        bus.emit(StageBegin, graph.name, self.graph.name)
        yield
        bus.emit(StageEnd, graph.name, self.graph.name, len(graph.nodes))

    def _instantiate(self, graph: ExeGraph) -> list[RunNode]:
        return [(get_kernel_func(n.type), KernelContext(f"{graph.name}/{n.name}/{n.type}",
                                                        self.values, n.inputs, n.outputs,
                                                        self._attrs(n)))
                for n in graph.nodes]

    def _attrs(self, node: ExeNode) -> dict[str, Any]:
        """A control-flow node's attrs gain an executor per subgraph (the Main's kind)."""
        subgraphs = node.attrs.get(SUBGRAPHS)
        if not subgraphs:
            return node.attrs
        return {**node.attrs, DEADLINE: self.deadline, SUBGRAPH_EXECUTORS: [
            self.executor_cls(self._instantiate(g), g.dependencies()) for g in subgraphs]}

    # -- execute ------------------------------------------------------------------------------
    def execute(self, feeds: Mapping[str, Any] | Sequence[Any],
                timeout_ms: int | None = None) -> ExecuteResult:
        """One run of Main; ``timeout_ms`` of device time (None or -1: no bound) ends one
        whose While iterates past it."""
        if self.main is None:
            raise GeError(f"ModelV2Executor of {self.graph.name}: execute before load")
        values = self.values
        for (_, value_id), feed in zip(self.graph.inputs, self._feed_list(feeds)):
            values[value_id] = feed
        device = self.stream.device
        start = max(device.now, device.host_now)
        bounded = timeout_ms is not None and timeout_ms > 0
        self.deadline.at_ns = start + timeout_ms * 1_000_000 if bounded else None
        self.deadline.timeout_ms = timeout_ms if bounded else -1
        allocators = [v for v in values if isinstance(v, CachingMemAllocator)]
        live = [a.live() for a in allocators]
        try:
            with self._stage(self.graph.main):
                self.main.execute()
        except Exception:
            # A failed execution's tensors die with it, as GE's do with the execution's
            # context: once the device is drained, its blocks are idle again, so the model
            # can run again and unload cleanly.
            _drain(device)
            for allocator, before in zip(allocators, live):
                allocator.free_since(before)
            raise
        self.iterations += 1
        outputs = {name: values[v] for name, v in self.graph.outputs}
        return ExecuteResult(outputs, device.now - start, start, device.now)

    def _feed_list(self, feeds: Mapping[str, Any] | Sequence[Any]) -> list[Any]:
        names = [name for name, _ in self.graph.inputs]
        if isinstance(feeds, Mapping):
            missing = [n for n in names if n not in feeds]
            if missing:
                raise ModelInputError(f"model {self.graph.name}: no value fed for "
                                      f"{', '.join(missing)} (inputs: {', '.join(names)})")
            return [feeds[n] for n in names]
        if len(feeds) != len(names):
            raise ModelInputError(f"model {self.graph.name}: {len(feeds)} inputs fed, it takes "
                                  f"{len(names)} ({', '.join(names)})")
        return list(feeds)

    # -- unload -------------------------------------------------------------------------------
    def unload(self) -> None:
        if self.state != "loaded":
            raise GeError(f"ModelV2Executor of {self.graph.name}: unload when {self.state}")
        self.main = None
        with self._stage(self.graph.deinit):
            SequentialExecutor(self._instantiate(self.graph.deinit), []).execute()
        self.values = []
        self.state = "unloaded"


def _drain(device: Device) -> None:
    try:
        device.synchronize()
    except AclError:   # a fault or deadlock: the execution's own error says what went wrong
        pass
