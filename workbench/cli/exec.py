"""`gewb exec MODEL.onnx|MODEL.om`: run a model once on the emulated NPU, on a fresh World, and
print its outputs and the device time it took.

    --mode auto     as GE's ModelManager decides (default): sink, or hybrid for unknown dims
    --mode sink     GE's v1 runtime: the model's tasks sunk to the device (DavinciModel)
    --mode hybrid   dynamic shapes, host-scheduled node by node (ge_core.runtime.hybrid)
    --mode v2       lowered to an ExecuteGraph (ge_core.runtime.v2)
    --streams       single: one stream (ge.enableSingleStream); auto: parallel streams
                    (ge.streamMaxParallelNum 4). Compiling an .onnx only: an OM's are fixed.

Inputs come from --input NAME=FILE (.npy, or an ONNX TensorProto .pb as the onnx wheel's test
data holds them), the rest are seeded random (sized by --input-shape NAME:D,D;... where the model
leaves a dimension symbolic). The given shapes are the model's input shapes (GE's
CheckAndUpdateInput; with gear options, --input-shape marks the gears' dims instead): with every
shape known, auto sinks the model, else runs it hybrid. --output writes every output, by graph
output name, to an .npz; --trace writes the device timeline (Perfetto).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from ge_core.exec_timeout import DEFAULT_EXEC_TIMEOUT_MS, parse_timeout
from workbench.cli.compile import add_autofuse_option, add_gear_options, gear_options
from workbench.cli.user_error import UserError, failure_text
from workbench.output_path import writable_file, write_output

MODES = ("auto", "sink", "hybrid", "v2")
AUTO_PARALLEL_STREAMS = 4   # ge.streamMaxParallelNum for --streams auto
STREAMS = {"single": {"enable_single_stream": True},
           "auto": {"stream_max_parallel_num": AUTO_PARALLEL_STREAMS}}


def _manager(args: argparse.Namespace, user_input_shapes: dict[str, tuple[int, ...]]):
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.compiler.stream.stream_options import StreamOptions
    from ge_core.session import GraphManager
    from workbench.cli.compile import autofuse_option, gear_options, switchn_option
    return GraphManager(CompileOptions(dump=None, multi_batch=gear_options(args),
                                       user_input_shapes=user_input_shapes,
                                       **autofuse_option(args)),
                        BuildOptions(stream=StreamOptions(**STREAMS.get(args.streams, {})),
                                     **switchn_option(args)))


def _inputs(args: argparse.Namespace, graph):
    from workbench.model_inputs import ModelInputError, read_inputs
    try:
        return read_inputs(graph, args.input)
    except ModelInputError as exc:
        raise UserError(f"--{exc}") from exc


def _root_model(args: argparse.Namespace):
    """(what loads, the inputs given, the manager): an OM read, or an ONNX parsed, given the
    inputs' shapes, compiled, then built for its mode (hybrid loads the compiled graph; auto
    builds it unless some dims are unknown; v2 lowers it unbuilt then, or with control flow)."""
    from ge_core.om import OmFileError, load_om
    if args.model.lower().endswith(".om"):
        for flag, what, given in (("--streams", "streams", args.streams is not None),
                                  ("--input-shape", "input shapes", bool(args.input_shape))):
            if given:
                raise UserError(f"{flag} applies to an .onnx model: an OM's {what} were "
                                f"fixed when it was compiled")
        try:
            model = load_om(args.model)
        except (OmFileError, OSError) as exc:
            raise UserError(str(exc)) from exc
        return model, _inputs(args, model.graph), _manager(args, {})
    from workbench.cli.model_files import load_model
    graph = load_model(args.model)
    inputs = _inputs(args, graph)
    manager = _manager(args, inputs.shapes)
    return _compiled_root(args, manager, graph), inputs, manager


def _compiled_root(args: argparse.Namespace, manager, graph):
    try:   # a compile or build failure names its pass, node or input
        manager.compile(graph)
        if args.mode == "hybrid":
            return graph
        if args.mode in ("auto", "v2"):   # v2 lowers unknown dims and control flow unbuilt
            root = manager.build_root_model(graph, lowered=args.mode == "v2")
            if args.mode == "auto" and root is graph and gear_options(args).enabled:
                _say_fallback(args, graph)
            return root
        return manager.build(graph).ge_model   # sink needs a static build
    except Exception as exc:
        raise UserError(f"{args.model}: {failure_text(exc)}") from exc


def _say_fallback(args: argparse.Namespace, graph) -> None:
    """Gears ask for a static build (one sunk copy per gear); when ModelManager loads the model
    hybrid instead, exec says so and why, in one line."""
    from ge_core.compiler.model_builder import static_build_refusal
    reason = static_build_refusal(graph) or "some node runs on the host"
    print(f"{Path(args.model).name}: the gears were not built, running hybrid: "
          f"{' '.join(reason.split())}")


def _about(model) -> str:
    from ge_core.runtime.hybrid import HybridDavinciModel
    if isinstance(model, HybridDavinciModel):
        return "hybrid (HybridDavinciModel, host-scheduled)"
    memory = ", ".join(f"{s.name.replace('_', ' ')} {s.size} B"
                       for s in model.memory.segments if s.size)
    streams = len(model.streams)
    gears, gear = model.io.gears, model.io.gear
    ran = "" if gears is None or gear is None else \
        f"; gear {gear} of {len(gears.gears)} ({','.join(map(str, gears.gears[gear]))})"
    return (f"sink (v1 DavinciModel): {streams} stream{'s' * (streams != 1)}, "
            f"{len(model.task_infos)} tasks; {memory}{ran}")


def _run(args: argparse.Namespace) -> tuple[str, dict[str, np.ndarray], int]:
    """GraphManager's steps: the model loaded as ModelManager decides (auto), sunk, or hybrid;
    or, for v2, lowered to an ExecuteGraph and run once."""
    from ge_core.runtime.v1.model_manager import root_graph
    from ge_core.runtime.v2 import execute_v2
    root, inputs, manager = _root_model(args)
    if args.mode == "v2":
        result = execute_v2(root, inputs.feeds(root_graph(root), args.seed))
        return "v2 (ExecuteGraph, sequential executor)", result.outputs, result.emulated_ns
    # Loaded before its inputs are made: a plan larger than the device fails here, at once,
    # not after the host has built inputs as large.
    with manager.loaded(root, hybrid=args.mode == "hybrid") as model:
        outputs = manager.execute(model, inputs.feeds(root_graph(root), args.seed),
                                  args.timeout)
        return _about(model), outputs, model.last_execute_ns


def run_exec(args: argparse.Namespace) -> int:
    from npu_emu.world import World
    from npu_emu.timeline import Timeline
    from workbench.debugger.views.tensor_text import summary
    if not Path(args.model).is_file():
        raise UserError(f"no such model: {args.model}")
    for option, path in (("--output", args.output), ("--trace", args.trace)):
        if path:
            writable_file(path, option)
    world = World()
    timeline = Timeline()
    if args.trace:
        world.bus.subscribe(timeline)
    with world.entered():
        try:
            world.runtime.set_device(0)
            about, outputs, device_ns = _run(args)
        except UserError:
            raise
        except Exception as exc:  # a load, lowering or execution failure names its node or task
            raise UserError(f"{args.model}: {failure_text(exc)}") from exc
        finally:
            world.runtime.close()
    print(f"{Path(args.model).name}: {about}")
    for name, value in outputs.items():
        print(f"  {name}: {summary(value)}")
    print(f"emulated time: {device_ns / 1000:.3f} us")
    if args.output:
        write_output(args.output, lambda p: _save(p, outputs), "--output")
        print(f"outputs written to {args.output}")
    if args.trace:
        write_output(args.trace, timeline.write, "--trace")
        print(f"timeline written to {args.trace}")
    return 0


def _save(path: Path, outputs: dict[str, Any]) -> None:
    arrays = {}
    for name, v in outputs.items():
        if isinstance(v, list):  # a sequence: its tensors as name.0, name.1, ...
            arrays.update({f"{name}.{i}": np.asarray(x) for i, x in enumerate(v)})
        elif v is not None:  # an empty optional writes nothing
            arrays[name] = np.asarray(v)
    np.savez(path, **arrays)


def timeout_ms(text: str) -> int:
    """--timeout's type (argparse shows the ValueError's message)."""
    try:
        return parse_timeout(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_exec_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("exec", help="run a model (.onnx compiled on the fly, or .om) once on the "
                                    "emulated NPU: outputs and device time")
    p.add_argument("model", help="an .onnx or .om file")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE",
                   help="an input's value, .npy or ONNX TensorProto .pb (repeatable); others "
                        "are seeded random")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--output", metavar="FILE.npz", help="write the outputs, by graph output name")
    p.add_argument("--mode", choices=MODES, default="auto",
                   help="auto (default): sink, or hybrid when some dims are unknown, as GE "
                        "decides; sink: GE's v1 TaskSink; hybrid; v2")
    p.add_argument("--streams", choices=tuple(STREAMS), default=None,
                   help="single: one stream; auto: parallel streams (streamMaxParallelNum "
                        f"{AUTO_PARALLEL_STREAMS}); default: GE's (one stream per engine)")
    p.add_argument("--timeout", type=timeout_ms, default=DEFAULT_EXEC_TIMEOUT_MS, metavar="MS",
                   help="end an execution that runs longer, in ms of emulated device time; -1: "
                        f"never (ge.exec.graphExecTimeout; default {DEFAULT_EXEC_TIMEOUT_MS})")
    p.add_argument("--trace", metavar="OUT.json",
                   help="write the device timeline as Chrome Trace Event JSON (Perfetto)")
    add_autofuse_option(p)
    add_gear_options(p)
    p.set_defaults(func=run_exec)
