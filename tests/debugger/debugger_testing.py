"""Shared helpers for the debugger engine's tests: open a target, expect a stop or an end; device
tensors made as the device tests make them."""
import importlib.util
import sys
from pathlib import Path

import onnx

from workbench.debugger.engine import Debugger
from workbench.debugger.outcomes import Finished, Stopped
from workbench.debugger.targets import Target, open_target
from workbench.debugger.targets.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
TINY = "sample_models/tiny_cnn.onnx"
DEVRUN = "sample_models/devrun"


def _device_testing():
    """tests/npu_emu/npu_emu_testing.py, loaded by path: tests/npu_emu is not on the path here."""
    path = ROOT / "tests" / "npu_emu" / "npu_emu_testing.py"
    spec = importlib.util.spec_from_file_location("npu_emu_testing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_device = _device_testing()
vec, empty, read = _device.vec, _device.empty, _device.read


def debugger(spec: str, trace_hash: bool = False, gap: int | None = None,
             **settings) -> Debugger:
    target = open_target(spec, ROOT, Settings(**settings))
    if gap is None:
        return Debugger(target, trace_hash=trace_hash)
    return Debugger(target, trace_hash=trace_hash, checkpoint_gap=gap)


def stopped(outcomes: list) -> Stopped:
    assert outcomes and isinstance(outcomes[-1], Stopped), outcomes
    return outcomes[-1]


def finished(outcomes: list) -> Finished:
    assert outcomes and isinstance(outcomes[-1], Finished), outcomes
    return outcomes[-1]


def synthetic_model(n_nodes: int) -> onnx.ModelProto:
    """bench_compile's synthetic graph: blocks of 8 nodes with a foldable constant, a duplicate
    (CSE) branch, an Identity and a residual join; a compile of ~30 ticks a node, most of them
    inside stages and passes, none on the device."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    from bench_compile import synthetic
    return synthetic(n_nodes)


def synthetic_target(directory: Path, n_nodes: int) -> Target:
    """``synthetic_model(n_nodes)``, saved in ``directory`` and opened."""
    path = directory / f"synthetic_{n_nodes}.onnx"
    onnx.save(synthetic_model(n_nodes), str(path))
    return open_target(str(path), directory)
