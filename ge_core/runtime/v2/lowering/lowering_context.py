"""What a node converter works with while lowering (GE's LoweringGlobalData plus the value
holders): the ExecuteGraph being built, the value of each compute-graph tensor, the resources
Init makes on first use (streams, events, notifies), and the bookkeeping the guarders and the
final Synchronize need (who uses each block, the last node issued to each stream).

A subgraph (an If branch, a Loop body) is lowered with a context of its own
(``for_subgraph``): it shares the ExecuteGraph, its values, Init and the resources, and keeps its
own tensors, blocks and stream order, so its guarders free what it allocates inside it.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ge_core.graph import ComputeGraph, GeTensor, InDataAnchor, Node
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, OPSET, STREAM_ID
from ge_core.runtime.op_kernel import LATEST_OPSET
from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.execute_graph import ExecuteGraph, ExeGraph, ExeNode, TensorSpec


ON_DEVICE, ON_HOST, ANY = "device", "host", "any"   # where a reader needs a value (GE's
                                                    # TensorPlacement)


class LoweringError(Exception):
    """A ComputeGraph that cannot be lowered; the message names the node."""


@dataclass(frozen=True)
class LoweringOptions:
    infer_at_run_time: bool = False   # every op's InferShape at run time (hybrid), not only
                                      # those of ops whose shapes are unknown when lowering
    single_stream: bool = False       # one stream for every node (hybrid): the build's stream
                                      # assignment and its sync nodes are ignored


@dataclass
class Block:
    """A device block Main allocates, and what uses it (through the tensor or a view of it)."""

    value: int
    writer: tuple[int, int | None]                      # (Main node id, stream or HOST)
    readers: list[tuple[int, int | None]] = field(default_factory=list)
    output: bool = False                                 # a graph output reads it after Sync
    escapes: bool = False   # a subgraph's result: handed to its parent node, which frees it


class LoweringContext:
    def __init__(self, graph: ComputeGraph, options: LoweringOptions) -> None:
        self.graph = graph
        self.options = options
        self.opset = int(graph.root.attrs.get(OPSET, LATEST_OPSET))
        self.exe = ExecuteGraph(graph.name)
        self.init, self.main = self.exe.init, self.exe.main
        self.deinit_nodes: list[tuple[str, str, tuple[int, ...]]] = []  # run in reverse
        self.absent = self.constant("absent", None)
        self.stream0 = self.exe.own_stream = self.exe.new_value("stream0")
        self.allocator = self.exe.new_value("allocator")
        self.init.add("CreateL1Allocator", "allocator", (self.stream0,), (self.allocator,))
        self.deinit_nodes.append(("ReleaseAllocator", "allocator", (self.allocator,)))
        self._streams: dict[int, int] = {0: self.stream0}   # logical stream -> value
        self._sync: dict[str, int] = {}                     # event / notify name -> value
        self._tensors: dict[tuple[str, int], int] = {}      # (node, output) -> value
        self._root: dict[int, int] = {}                     # tensor value -> its block's value
        self.blocks: dict[int, Block] = {}                  # Main's blocks, by value
        self.last_issued: dict[int, int] = {}               # logical stream -> Main node id
        self.on_host: set[int] = set()                      # values in host memory
        self._moved: dict[tuple[int, str], int] = {}        # (value, placement) -> its copy

    def for_subgraph(self, graph: ComputeGraph) -> "LoweringContext":
        """A context lowering ``graph`` (a subgraph) into an ExeGraph of its own: what Init
        holds is shared, what one graph's Main tracks is fresh."""
        sub = copy.copy(self)
        sub.graph = graph
        sub.main = ExeGraph(graph.name)
        sub._tensors, sub._root, sub.blocks = {}, {}, {}
        sub.last_issued, sub._moved = {}, {}
        return sub

    # -- values ---------------------------------------------------------------------------------
    def constant(self, name: str, value: Any) -> int:
        v = self.exe.new_value(name)
        self.exe.constants[v] = value
        return v

    def input(self, anchor: InDataAnchor, placement: str = ON_DEVICE) -> int:
        """The value of the tensor feeding ``anchor`` (``absent`` for a left-out input), where
        its reader needs it: on the device (a host value is copied there first), on the host (a
        device tensor is copied back), or ANY (as it is)."""
        if anchor.peer is None:
            return self.absent
        key = (anchor.peer.owner.name, anchor.peer.idx)
        if key not in self._tensors:
            raise LoweringError(f"node {anchor.owner.name}: input {anchor.idx} comes from "
                                f"{anchor.peer.label}, which was not lowered before it")
        value = self._tensors[key]
        if placement == ANY or (value in self.on_host) == (placement == ON_HOST):
            return value
        if (value, placement) not in self._moved:
            self._moved[value, placement] = self._move(value, placement)
        return self._moved[value, placement]

    def _move(self, value: int, placement: str) -> int:
        """A copy of ``value`` on the other side: GE v2's MakeSureTensorAtDevice for a host
        value a device kernel reads, CopyD2H (after the device is done) for the reverse."""
        name = self.exe.value_names[value]
        moved = self.exe.new_value(f"{name}@{placement}")
        if placement == ON_DEVICE:
            node = self.main.add("MakeSureTensorAtDevice", name, (self.allocator, value), (moved,))
            self.new_block(moved, node, HOST)
        else:
            block = self.block_of(value)
            stream = self.stream0 if block is None or block.writer[1] is HOST else \
                self.stream_value(block.writer[1])
            node = self.main.add("CopyD2H", name, (stream, value), (moved,),
                                 after=self.writers([value]))
            self.read(node, [value], HOST)
            self.on_host.add(moved)
        return moved

    def bind(self, node: Node, idx: int, value: int, view_of: int | None = None) -> None:
        """``value`` is output ``idx`` of ``node``; a view shares ``view_of``'s block."""
        self._tensors[(node.name, idx)] = value
        self._root[value] = value if view_of is None else self._root.get(view_of, view_of)

    def new_block(self, value: int, writer: ExeNode, stream: int | None) -> None:
        self.blocks[value] = Block(value, (writer.id, stream))

    def read(self, node: ExeNode, values: tuple[int, ...] | list[int],
             stream: int | None) -> None:
        """``node`` reads these tensors (on ``stream``, or HOST)."""
        for v in values:
            block = self.blocks.get(self._root.get(v, v))
            if block is not None:
                block.readers.append((node.id, stream))

    def writers(self, values: tuple[int, ...] | list[int]) -> list[int]:
        """The Main nodes that fill these tensors' blocks: a host reader of their data follows
        them, since the value it is handed is the allocation's, and the topological executor
        would otherwise run it before the kernel that fills the block is even launched."""
        return sorted({b.writer[0] for b in map(self.block_of, values) if b is not None})

    def block_of(self, value: int) -> "Block | None":
        return self.blocks.get(self._root.get(value, value))

    # -- streams and sync resources --------------------------------------------------------------
    def stream(self, node: Node) -> tuple[int, int]:
        """(logical stream, its value) the node issues to."""
        logical = 0 if self.options.single_stream else max(node.op_desc.get_attr(STREAM_ID, 0)
                                                            or 0, 0)
        return logical, self.stream_value(logical)

    def stream_value(self, logical: int) -> int:
        if logical not in self._streams:
            v = self._streams[logical] = self.exe.new_value(f"stream{logical}")
            self.init.add("CreateStream", f"stream{logical}", (self.stream0,), (v,))
            self.deinit_nodes.append(("DestroyStream", f"stream{logical}", (v,)))
        return self._streams[logical]

    def event(self, name: str) -> int:
        return self._resource(name, "CreateEvent", "DestroyEvent")

    def notify(self, name: str) -> int:
        return self._resource(name, "CreateNotify", None)

    def _resource(self, name: str, create: str, destroy: str | None) -> int:
        if name not in self._sync:
            v = self._sync[name] = self.exe.new_value(name)
            self.init.add(create, name, (self.stream0,), (v,))
            if destroy is not None:
                self.deinit_nodes.append((destroy, name, (v,)))
        return self._sync[name]

    def issue(self, node: ExeNode, stream: int) -> None:
        """``node`` issues tasks to ``stream``: it follows the stream's previous issuer, so each
        stream gets its tasks in the order the build planned its events on."""
        previous = self.last_issued.get(stream)
        if previous is not None:
            node.after.append(previous)
        self.last_issued[stream] = node.id

    # -- shapes ---------------------------------------------------------------------------------
    def output_specs(self, node: Node, inputs: list[int], stream_value: int) -> list[int]:
        """A value per output holding its TensorSpec: constants when the compiler knew the
        shapes (InferShape precomputed), else the outputs of an InferShape node."""
        descs = node.op_desc.output_descs
        if not self.options.infer_at_run_time and not any(d.shape.is_unknown for d in descs):
            return [self.constant(f"{node.name}:{i} spec",
                                  TensorSpec(d.shape.dims, d.dtype.to_numpy().name))
                    for i, d in enumerate(descs)]
        specs = tuple(self.exe.new_value(f"{node.name}:{i} spec") for i in range(len(descs)))
        consts = {a.idx: a.peer.owner.op_desc.get_attr(ATTR_NAME_WEIGHTS)
                  for a in node.in_data_anchors
                  if a.peer is not None and a.peer.owner.type == "Const"}
        infer = self.main.add("InferShape", node.name, (stream_value, *inputs), specs,
                              {"op_desc": node.op_desc, "opset": self.opset,
                               "consts": {i: c for i, c in consts.items()
                                          if isinstance(c, GeTensor)}, "seen": {}},
                             after=self.writers(inputs))
        self.read(infer, inputs, HOST)   # a data-dependent one reads inputs back
        return list(specs)
