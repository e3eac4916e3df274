"""Main's control-flow kernels (GE v2's control_kernel and the If / Case / While lowering): the
host picks a branch or decides whether a loop goes on, then runs that subgraph's ExeGraph node
by node; its kernels launch on the device like any other.

    GenIndexForIf     an If's condition (a host scalar) -> its branch: 0 then, 1 else
    GenIndexForCase   a Case's index -> its branch (out of range: the last one, as GE's)
    If / Case         run the chosen branch; its results become the node's outputs
    GenCondForWhile   a Loop's "go on?": the iteration below the trip count, and the flag
    While             cond, then body, until cond says stop; the body's results become the next
                      iteration's inputs (GE's MoveOutputs2Inputs), scan outputs are stacked
    IdentityAddr      a device tensor copied into a block of its own (a While's loop state)

A subgraph's results are blocks it allocated itself and handed over (lowering copies anything
else first), so a parent frees each output once, whichever branch or iteration made it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ge_core.ops.control_flow import check_scan_pieces
from ge_core.runtime.errors import ModelExecuteTimeout
from ge_core.runtime.v2.execute_graph import SUBGRAPHS
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, issue, register_kernel
from npu_emu.core.kernel_task import TensorArg

EXECUTORS = "executors"   # the attr ModelV2Executor fills: one executor per subgraph
DEADLINE = "deadline"     # and the execution's Deadline, which a While checks every iteration


class Deadline:
    """When the running execution must end, in device time (ge.exec.graphExecTimeout;
    ``at_ns`` None: never). A lowered graph's only unbounded construct is a While, so its
    iterations check it: a Loop counting to 2^31 ends with a message, as a sunk model's
    stream timeout ends one."""

    __slots__ = ("at_ns", "timeout_ms", "model")

    def __init__(self, model: str) -> None:
        self.at_ns: int | None = None
        self.timeout_ms = -1
        self.model = model

    def check(self, device: Any) -> None:
        if self.at_ns is not None and max(device.now, device.host_now) > self.at_ns:
            raise ModelExecuteTimeout(f"model {self.model} did not finish within "
                                      f"{self.timeout_ms} ms of device time and was aborted")


@register_kernel("GenIndexForIf")
def gen_index_for_if(ctx: KernelContext) -> None:
    v = ctx.values
    v[ctx.outs[0]] = 0 if bool(np.asarray(v[ctx.ins[0]]).item()) else 1


@register_kernel("GenIndexForCase")
def gen_index_for_case(ctx: KernelContext) -> None:
    v = ctx.values
    index = int(np.asarray(v[ctx.ins[0]]).item())
    branches = ctx.attrs["branch_num"]
    v[ctx.outs[0]] = index if 0 <= index < branches else branches - 1


def _run_branch(ctx: KernelContext) -> None:
    v, a = ctx.values, ctx.attrs
    index = v[ctx.ins[0]]
    a[EXECUTORS][index].execute()
    for out, result in zip(ctx.outs, a[SUBGRAPHS][index].results):
        v[out] = v[result]


register_kernel("If")(_run_branch)
register_kernel("Case")(_run_branch)


@register_kernel("GenCondForWhile")
def gen_cond_for_while(ctx: KernelContext) -> None:
    v = ctx.values
    iteration, max_trip, flag = (v[i] for i in ctx.ins)
    v[ctx.outs[0]] = bool(np.asarray(flag).item()) and (
        max_trip is None or int(iteration) < int(np.asarray(max_trip).item()))


@register_kernel("IdentityAddr")
def identity_addr(ctx: KernelContext) -> None:
    v = ctx.values
    allocator, stream, src = (v[i] for i in ctx.ins)
    v[ctx.outs[0]] = _copy(allocator, stream, src, ctx.attrs["stream"])


def _copy(allocator: Any, stream: Any, src: TensorArg, logical: int) -> TensorArg:
    dst = TensorArg(allocator.alloc(src.nbytes, logical), src.shape, src.dtype)
    if src.nbytes:
        issue(stream)
        stream.memcpy_async(dst.addr, src.addr, src.nbytes)
    return dst


@register_kernel("While")
def while_kernel(ctx: KernelContext) -> None:
    """ins: allocator, stream, max trip, flag, the loop state's first values (own blocks),
    captured values; outs: the final state, then the scan outputs."""
    v, a = ctx.values, ctx.attrs
    allocator, stream = v[ctx.ins[0]], v[ctx.ins[1]]
    n_state = len(a["state"])
    states = [v[i] for i in ctx.ins[4:4 + n_state]]
    cond, body = a[EXECUTORS]
    cond_graph, body_graph = a[SUBGRAPHS]
    flag = v[ctx.ins[3]]
    v[a["max_trip"]] = v[ctx.ins[2]]
    v[a["flag"]] = np.array(True) if flag is None else flag   # no cond input: go on
    scans: list[list[TensorArg]] = [[] for _ in a["scan_specs"]]
    iteration = 0
    while True:
        a[DEADLINE].check(stream.device)
        v[a["iteration"]] = np.array(iteration, np.int64)
        cond.execute()
        if not v[cond_graph.results[0]]:
            break
        for value, state in zip(a["state"], states):
            v[value] = state
        body.execute()
        results = [v[r] for r in body_graph.results]
        v[a["flag"]] = results[0]
        _free(allocator, states, a["stream"])    # the body has issued its last read of them
        states = results[1:1 + n_state]
        for pieces, piece in zip(scans, results[1 + n_state:]):
            pieces.append(piece)
        iteration += 1
    for k, pieces in enumerate(scans):
        check_scan_pieces([p.shape for p in pieces], k)
    outs = [*states, *(_stack(allocator, stream, pieces, spec, a["stream"])
                       for pieces, spec in zip(scans, a["scan_specs"]))]
    for out, value in zip(ctx.outs, outs):
        v[out] = value


def _free(allocator: Any, values: list[Any], logical: int) -> None:
    for value in values:
        if isinstance(value, TensorArg):
            allocator.free(value.addr, logical)


def _stack(allocator: Any, stream: Any, pieces: list[TensorArg],
           spec: tuple[tuple[int, ...], str], logical: int) -> TensorArg:
    """A Loop's scan output: each iteration's piece copied into its place along a new first
    axis (no iteration: an empty tensor shaped like the body's result)."""
    dims, dtype = spec
    shape = (len(pieces), *(pieces[0].shape if pieces else dims))
    out = TensorArg(allocator.alloc(int(np.prod(shape)) * np.dtype(dtype).itemsize, logical),
                    shape, dtype)
    offset = out.addr
    for piece in pieces:
        if piece.nbytes:
            issue(stream)
            stream.memcpy_async(offset, piece.addr, piece.nbytes)
        offset += piece.nbytes
    _free(allocator, pieces, logical)
    return out
