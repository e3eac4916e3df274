"""`gewb exec MODEL.onnx|MODEL.om`: run a model once on the emulated NPU, on a fresh World, and
print its outputs and the device time it took.

    --mode auto     as GE's ModelManager decides (default): sink, or hybrid for unknown dims
    --mode sink     GE's v1 runtime: the model's tasks sunk to the device (DavinciModel)
    --mode hybrid   dynamic shapes, host-scheduled node by node (ge_core.runtime.hybrid)
    --mode v2       lowered to an ExecuteGraph (ge_core.runtime.v2)
    --streams       single: one stream (ge.enableSingleStream); auto: parallel streams
                    (ge.streamMaxParallelNum 4). Compiling an .onnx only: an OM's are fixed.

Inputs come from --input NAME=FILE.npy, the rest are seeded random; --output writes every
output, by graph output name, to an .npz; --trace writes the device timeline (Perfetto).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from workbench.cli.user_error import UserError

MODES = ("auto", "sink", "hybrid", "v2")
AUTO_PARALLEL_STREAMS = 4   # ge.streamMaxParallelNum for --streams auto
STREAMS = {"single": {"enable_single_stream": True},
           "auto": {"stream_max_parallel_num": AUTO_PARALLEL_STREAMS}}


def _manager(args: argparse.Namespace):
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.compiler.stream.stream_options import StreamOptions
    from ge_core.session import GraphManager
    return GraphManager(CompileOptions(dump=None),
                        BuildOptions(stream=StreamOptions(**STREAMS.get(args.streams, {}))))


def _root_model(args: argparse.Namespace, manager):
    """What loads: an OM read, or an ONNX parsed and compiled, then built for its mode (hybrid
    loads the compiled graph; auto builds it unless some dims are unknown)."""
    from ge_core.om import OmFileError, load_om
    if args.model.lower().endswith(".om"):
        if args.streams is not None:
            raise UserError("--streams applies to an .onnx model: an OM's streams were fixed "
                            "when it was compiled")
        try:
            return load_om(args.model)
        except (OmFileError, OSError) as exc:
            raise UserError(str(exc)) from exc
    from workbench.cli.model_files import load_model
    graph = load_model(args.model)
    try:   # a compile or build failure names its pass or node
        manager.compile(graph)
        if args.mode == "hybrid":
            return graph
        if args.mode == "auto":
            return manager.build_root_model(graph)
        return manager.build(graph).ge_model   # sink and v2 need a static build
    except Exception as exc:
        raise UserError(f"{args.model}: {exc}") from exc


def _feeds(args: argparse.Namespace, graph) -> dict[str, np.ndarray]:
    from ge_core.executor import random_feeds
    from ge_core.runtime.model_io import model_inputs
    names = [io.name for io in model_inputs(graph)]
    feeds = random_feeds(graph, args.seed)
    for spec in args.input:
        name, sep, path = spec.partition("=")
        if not sep or name not in names:
            raise UserError(f"--input {spec}: expected NAME=FILE.npy with NAME one of "
                            f"{', '.join(names)}")
        try:
            feeds[name] = np.load(path)
        except (OSError, ValueError) as exc:
            raise UserError(f"--input {spec}: {exc}") from exc
    return feeds


def _about(model) -> str:
    from ge_core.runtime.hybrid import HybridDavinciModel
    if isinstance(model, HybridDavinciModel):
        return "hybrid (HybridDavinciModel, host-scheduled)"
    memory = ", ".join(f"{s.name.replace('_', ' ')} {s.size} B"
                       for s in model.memory.segments if s.size)
    streams = len(model.streams)
    return (f"sink (v1 DavinciModel): {streams} stream{'s' * (streams != 1)}, "
            f"{len(model.task_infos)} tasks; {memory}")


def _run(args: argparse.Namespace) -> tuple[str, dict[str, np.ndarray], int]:
    """GraphManager's steps: the model loaded as ModelManager decides (auto), sunk, or hybrid;
    or, for v2, lowered to an ExecuteGraph and run once."""
    from ge_core.runtime.v1.model_manager import root_graph
    from ge_core.runtime.v2 import execute_v2
    manager = _manager(args)
    root = _root_model(args, manager)
    feeds = _feeds(args, root_graph(root))
    if args.mode == "v2":
        result = execute_v2(root, feeds)
        return "v2 (ExecuteGraph, sequential executor)", result.outputs, result.emulated_ns
    with manager.loaded(root, hybrid=args.mode == "hybrid") as model:
        return _about(model), manager.execute(model, feeds), model.last_execute_ns


def run_exec(args: argparse.Namespace) -> int:
    from npu_emu.world import World
    from npu_emu.timeline import Timeline
    from workbench.debugger.views.tensor_text import summary
    if not Path(args.model).is_file():
        raise UserError(f"no such model: {args.model}")
    world = World()
    timeline = Timeline()
    if args.trace:
        world.bus.subscribe(timeline)
    with world.entered():
        world.runtime.set_device(0)
        try:
            about, outputs, device_ns = _run(args)
        except UserError:
            raise
        except Exception as exc:  # a load, lowering or execution failure names its node or task
            raise UserError(f"{args.model}: {type(exc).__name__}: {exc}") from exc
        finally:
            world.runtime.close()
    print(f"{Path(args.model).name}: {about}")
    for name, value in outputs.items():
        print(f"  {name}: {summary(value)}")
    print(f"emulated time: {device_ns / 1000:.3f} us")
    if args.output:
        _save(args.output, outputs)
        print(f"outputs written to {args.output}")
    if args.trace:
        timeline.write(args.trace)
        print(f"timeline written to {args.trace}")
    return 0


def _save(path: str, outputs: dict[str, Any]) -> None:
    arrays = {}
    for name, v in outputs.items():
        if isinstance(v, list):  # a sequence: its tensors as name.0, name.1, ...
            arrays.update({f"{name}.{i}": np.asarray(x) for i, x in enumerate(v)})
        elif v is not None:  # an empty optional writes nothing
            arrays[name] = np.asarray(v)
    try:
        np.savez(path, **arrays)
    except OSError as exc:
        raise UserError(f"--output {path}: {exc}") from exc


def add_exec_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("exec", help="run a model (.onnx compiled on the fly, or .om) once on the "
                                    "emulated NPU: outputs and device time")
    p.add_argument("model", help="an .onnx or .om file")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input's value (repeatable); others are seeded random")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--output", metavar="FILE.npz", help="write the outputs, by graph output name")
    p.add_argument("--mode", choices=MODES, default="auto",
                   help="auto (default): sink, or hybrid when some dims are unknown, as GE "
                        "decides; sink: GE's v1 TaskSink; hybrid; v2")
    p.add_argument("--streams", choices=tuple(STREAMS), default=None,
                   help="single: one stream; auto: parallel streams (streamMaxParallelNum "
                        f"{AUTO_PARALLEL_STREAMS}); default: GE's (one stream per engine)")
    p.add_argument("--trace", metavar="OUT.json",
                   help="write the device timeline as Chrome Trace Event JSON (Perfetto)")
    p.set_defaults(func=run_exec)
