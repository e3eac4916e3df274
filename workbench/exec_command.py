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

from workbench.cli import UserError

MODES = ("auto", "sink", "hybrid", "v2")
AUTO_PARALLEL_STREAMS = 4   # ge.streamMaxParallelNum for --streams auto
STREAMS = {"single": {"enable_single_stream": True},
           "auto": {"stream_max_parallel_num": AUTO_PARALLEL_STREAMS}}


def _stream_options(streams: str | None):
    from ge_core.compiler.stream.stream_options import StreamOptions
    return StreamOptions(**STREAMS.get(streams, {}))


def _ge_model(args: argparse.Namespace):
    """The built model: an OM read, or an ONNX compiled and built with the --streams choice."""
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.om import OmFileError, load_om
    if args.model.lower().endswith(".om"):
        if args.streams is not None:
            raise UserError("--streams applies to an .onnx model: an OM's streams were fixed "
                            "when it was compiled")
        try:
            return load_om(args.model)
        except (OmFileError, OSError) as exc:
            raise UserError(str(exc)) from exc
    from workbench.model_commands import load_model
    graph = load_model(args.model)
    try:
        built = atc(graph, CompileOptions(dump=None),
                    BuildOptions(stream=_stream_options(args.streams))).built
    except Exception as exc:   # a compile failure names its pass or node
        raise UserError(f"{args.model}: {exc}") from exc
    return built.ge_model


def _compiled_graph(args: argparse.Namespace):
    """A compiled, unbuilt graph (hybrid's input); an OM's graph as it was built."""
    from ge_core.compiler import CompileOptions, compile_graph
    if args.model.lower().endswith(".om"):
        return _ge_model(args).graph
    from workbench.model_commands import load_model
    graph = load_model(args.model)
    compile_graph(graph, CompileOptions(dump=None))
    return graph


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


def _run_sink(args: argparse.Namespace) -> tuple[str, dict[str, np.ndarray], int]:
    from ge_core.runtime.v1 import GraphLoader, ModelManager
    ge_model = _ge_model(args)
    feeds = _feeds(args, ge_model.graph)
    model_id = GraphLoader.load_model_online(ge_model)
    model = ModelManager.get_instance().get_model(model_id)
    try:
        outputs = model.nn_execute(feeds)
        memory = ", ".join(f"{s.name.replace('_', ' ')} {s.size} B"
                           for s in model.memory.segments if s.size)
        streams = len(model.streams)
        about = (f"sink (v1 DavinciModel): {streams} stream{'s' * (streams != 1)}, "
                 f"{len(model.task_infos)} tasks; {memory}")
        return about, outputs, model.last_execute_ns
    finally:
        GraphLoader.unload_model(model_id)


def _run_v2(args: argparse.Namespace) -> tuple[str, dict[str, np.ndarray], int]:
    from ge_core.runtime.v2 import execute_v2
    ge_model = _ge_model(args)
    result = execute_v2(ge_model, _feeds(args, ge_model.graph))
    return "v2 (ExecuteGraph, sequential executor)", result.outputs, result.emulated_ns


def _run_hybrid(args: argparse.Namespace) -> tuple[str, dict[str, np.ndarray], int]:
    from ge_core.runtime.hybrid import execute_hybrid
    graph = _compiled_graph(args)
    result = execute_hybrid(graph, _feeds(args, graph))
    return "hybrid (HybridDavinciModel, host-scheduled)", result.outputs, result.emulated_ns


def _run_auto(args: argparse.Namespace) -> tuple[str, dict[str, np.ndarray], int]:
    """GE loads a model with unknown dims as a HybridDavinciModel, any other one sunk."""
    from ge_core.runtime.hybrid import is_need_hybrid_load
    from workbench.model_commands import load_model
    dynamic = not args.model.lower().endswith(".om") and is_need_hybrid_load(load_model(args.model))
    return (_run_hybrid if dynamic else _run_sink)(args)


RUNNERS = {"auto": _run_auto, "sink": _run_sink, "v2": _run_v2, "hybrid": _run_hybrid}


def run_exec(args: argparse.Namespace) -> int:
    from ge_core.world import World
    from npu_emu.timeline import Timeline
    from workbench.debugger.tensor_text import summary
    if not Path(args.model).is_file():
        raise UserError(f"no such model: {args.model}")
    world = World()
    timeline = Timeline()
    if args.trace:
        world.bus.subscribe(timeline)
    with world.entered():
        world.runtime.set_device(0)
        try:
            about, outputs, device_ns = RUNNERS[args.mode](args)
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
