"""Shared helpers for the v1 runtime's tests: built models (cached as OM bytes, so each test gets
its own GeModel), a fresh World with a device and a trace recorder, the host reference."""
from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import numpy as np
import onnx

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.executor import HostExecutor, random_feeds
from ge_core.om import load_om_bytes, om_bytes
from ge_core.om.ge_model import GeModel
from ge_core.parser import parse_onnx
from ge_core.runtime.v1 import DavinciModel, GraphLoader, ModelManager
from npu_emu.base.trace import TraceEvent, TraceRecorder
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World

ROOT = Path(__file__).resolve().parents[2]
TINY = str(ROOT / "sample_models" / "tiny_cnn.onnx")


def light(name: str) -> str:
    return str(Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
               / f"light_{name}.onnx")


@lru_cache(maxsize=None)
def om_of(path: str = TINY, **stream: object) -> bytes:
    graph = parse_onnx(path)
    built = atc(graph, CompileOptions(dump=None), BuildOptions(stream=StreamOptions(**stream)))
    return om_bytes(built.built.ge_model)


def ge_model(path: str = TINY, **stream: object) -> GeModel:
    return load_om_bytes(om_of(path, **stream))


def feeds_for(path: str = TINY, seed: int = 0) -> dict[str, np.ndarray]:
    return random_feeds(parse_onnx(path), seed)


def host_outputs(path: str, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return HostExecutor(parse_onnx(path)).run(feeds)


@contextmanager
def device_world(**config: object) -> Iterator[World]:
    """A fresh World, entered, device 0 set; ``world.recorder`` keeps every trace event."""
    world = World(RuntimeConfig(**config))
    world.recorder = TraceRecorder()
    world.bus.subscribe(world.recorder)
    with world.entered():
        world.runtime.set_device(0)
        try:
            yield world
        finally:
            world.runtime.close()


def load(model: GeModel) -> DavinciModel:
    return ModelManager.get_instance().get_model(GraphLoader.load_model_online(model))


def events(world: World, kind: type[TraceEvent]) -> list:
    return [e for e in world.recorder.events if isinstance(e, kind)]
