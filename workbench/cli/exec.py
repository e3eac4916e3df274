"""`gewb exec MODEL.onnx|MODEL.om`: run a model once on the emulated NPU, on a fresh World, and
print its outputs and the device time it took.

    --mode auto     as GE's ModelManager decides (default): sink, or hybrid for unknown dims
                    (a line then says why)
    --mode sink     GE's v1 runtime: the model's tasks sunk to the device (DavinciModel)
    --mode hybrid   dynamic shapes, host-scheduled node by node (ge_core.runtime.hybrid)
    --mode v2       lowered to an ExecuteGraph (ge_core.runtime.v2)

GraphManager makes the choice (ge_core/session/graph_manager.py). GE's options are the flags of
`gewb compile` and the debugger's `set` (ge_core/ge_options.py); those of the compile and the
build apply to an .onnx model only: an OM's were fixed when it was built.

Inputs come from --input NAME=FILE (.npy, or an ONNX TensorProto .pb as the onnx wheel's test
data holds them), the rest are seeded random (sized by --input-shape NAME:D,D;... where the model
leaves a dimension symbolic). The given shapes are the model's input shapes (GE's
CheckAndUpdateInput; with gear options, --input-shape marks the gears' dims instead): with every
shape known, auto sinks the model, else runs it hybrid. --output writes every output, by graph
output name, to an .npz; --trace writes the device timeline (Perfetto). --race-check runs the
device's race detector: two tasks on different streams that touch the same bytes, one writing,
with no event, notify or sync ordering them, are a `fault: race: ...` line each, after the
outputs, and exit status 1 (a build's orderings checked, whichever order this run's scheduler
picked: `--stream-max-parallel-num 4 --notify --race-check`, or an OM from elsewhere).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from ge_core.ge_options import RunMode
from npu_emu.base.counted import counted
from workbench.cli.device_run_flags import add_device_run_flags
from workbench.cli.ge_option_flags import BUILT, add_ge_options, ge_option_map, given
from workbench.cli.user_error import UserError
from workbench.failure_text import failure_text
from workbench.output_path import writable_file, write_output

MODES = tuple(m.value for m in RunMode)


def _manager(args: argparse.Namespace, user_input_shapes: dict[str, tuple[int, ...]]):
    from ge_core.session import GraphManager
    return GraphManager.from_ge_options(ge_option_map(args), user_input_shapes=user_input_shapes)


def _inputs(args: argparse.Namespace, graph):
    from workbench.model_inputs import InputSpecError, read_inputs
    try:
        return read_inputs(graph, args.input)
    except InputSpecError as exc:
        raise UserError(f"--{exc}") from exc


def _planned(args: argparse.Namespace):
    """(the run plan, the inputs given, the manager): an OM read, or an ONNX parsed, given the
    inputs' shapes, compiled, then built as GraphManager plans it for the mode asked."""
    from ge_core.om import OmFileError, load_om
    mode = RunMode(args.mode)
    if args.model.lower().endswith(".om"):
        fixed = given(args, BUILT)
        if fixed:
            raise UserError(f"{fixed[0]} applies to an .onnx model: an OM's options were fixed "
                            f"when it was built")
        try:
            model = load_om(args.model)
        except (OmFileError, OSError) as exc:
            raise UserError(str(exc)) from exc
        manager = _manager(args, {})
        return manager.plan(model, mode), _inputs(args, model.graph), manager
    from workbench.cli.model_files import load_model
    graph = load_model(args.model)
    inputs = _inputs(args, graph)
    manager = _manager(args, inputs.shapes)
    try:   # a compile or build failure names its pass, node or input
        manager.compile(graph)
        return manager.prepare(graph, mode), inputs, manager
    except Exception as exc:
        raise UserError(f"{args.model}: {failure_text(exc)}") from exc


def _about(model, mode: RunMode) -> str:
    if mode is RunMode.HYBRID:
        return "hybrid (HybridDavinciModel, host-scheduled)"
    memory = ", ".join(f"{s.name.replace('_', ' ')} {s.size} B"
                       for s in model.memory.segments if s.size)
    streams = len(model.streams)
    gears, gear = model.io.gears, model.io.gear
    ran = "" if gears is None or gear is None else \
        f"; gear {gear} of {len(gears.gears)} ({','.join(map(str, gears.gears[gear]))})"
    return (f"sink (v1 DavinciModel): {counted(streams, 'stream')}, "
            f"{counted(len(model.task_infos), 'task')}; {memory}{ran}")


def _run(args: argparse.Namespace) -> tuple[str, dict[str, np.ndarray], int]:
    """GraphManager's steps in the mode it planned: loaded (sunk or hybrid), executed once,
    unloaded; or, for v2, lowered to an ExecuteGraph and run once."""
    from ge_core.runtime.v1.model_manager import root_graph
    plan, inputs, manager = _planned(args)
    if plan.why is not None:
        print(f"{Path(args.model).name}: {plan.why}")
    if plan.mode is RunMode.V2:
        result = manager.run_v2(plan.root, inputs.feeds(root_graph(plan.root), args.seed))
        return "v2 (ExecuteGraph, sequential executor)", result.outputs, result.emulated_ns
    # Loaded before its inputs are made: a plan larger than the device fails here, at once,
    # not after the host has built inputs as large.
    with manager.loaded(plan.root, plan.mode) as model:
        outputs = manager.execute(model, inputs.feeds(root_graph(plan.root), args.seed))
        return _about(model, plan.mode), outputs, model.last_execute_ns


def run_exec(args: argparse.Namespace) -> int:
    from npu_emu.runtime import RuntimeConfig
    from npu_emu.timeline import Timeline
    from npu_emu.world import World
    from workbench.debugger.views.tensor_text import summary
    if not Path(args.model).is_file():
        raise UserError(f"no such model: {args.model}")
    for option, path in (("--output", args.output), ("--trace", args.trace)):
        if path:
            writable_file(path, option)
    # the chip, as GE's build has it
    world = World(RuntimeConfig(soc_version=args.soc_version, race_check=args.race_check))
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
    for fault in world.runtime.faults:   # a run that raced still ends: its faults are told last
        print(f"fault: {fault.kind}: {fault.message}")
    return 1 if world.runtime.faults else 0


def _save(path: Path, outputs: dict[str, Any]) -> None:
    arrays = {}
    for name, v in outputs.items():
        if isinstance(v, list):  # a sequence: its tensors as name.0, name.1, ...
            arrays.update({f"{name}.{i}": np.asarray(x) for i, x in enumerate(v)})
        elif v is not None:  # an empty optional writes nothing
            arrays[name] = np.asarray(v)
    np.savez(path, **arrays)


def add_exec_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("exec", help="run a model (.onnx compiled on the fly, or .om) once on the "
                                    "emulated NPU: outputs and device time")
    p.add_argument("model", help="an .onnx or .om file")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE",
                   help="an input's value, .npy or ONNX TensorProto .pb (repeatable); others "
                        "are seeded random")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--output", metavar="FILE.npz", help="write the outputs, by graph output name")
    p.add_argument("--mode", choices=MODES, default=RunMode.AUTO.value,
                   help="auto (default): sink, or hybrid when some dims are unknown, as GE "
                        "decides (a line says why); sink: GE's v1 TaskSink; hybrid; v2")
    add_device_run_flags(p)
    add_ge_options(p)
    p.set_defaults(func=run_exec)
