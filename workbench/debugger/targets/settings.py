"""A target's settings: what, besides the target file, decides what a run does. They are part of
a saved session (`set NAME VALUE` lines), so replaying it reproduces the run."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable

from npu_emu.errors import InvalidParamError
from npu_emu.soc import DEFAULT_SOC_VERSION, SOC_PROFILES, soc_profile
from ge_core.exec_timeout import DEFAULT_EXEC_TIMEOUT_MS, parse_timeout


class SettingError(ValueError):
    """A bad `set`: the message names the setting."""


@dataclass(frozen=True)
class Settings:
    seed: int = 0                  # the seed of the ONNX model's generated inputs
    exclude_engines: str = ""      # ge.exec.exclude_engines: A,B
    race_check: bool = False       # the runtime's happens-before race detector
    stream_max_parallel_num: int = 1  # ge.streamMaxParallelNum: more streams on branchy models
    single_stream: bool = False    # ge.enableSingleStream: every node on one stream
    minimise_events: bool = False  # drop the events the transitive reduction finds redundant
    soc_version: str = DEFAULT_SOC_VERSION   # ge.socVersion: the chip, compiler's and runtime's
    max_task_count: int | None = None  # maxTaskNumPerStream where SplitStreams cuts; None: chip's
    hcom_parallel: bool = False    # ge.hcomParallel: AllReduce's successors on new streams
    input: str = ""                # NAME=FILE.npy,...: the model's inputs (their shapes too)
    input_shape: str = ""          # ge.inputShape: NAME:d,d;... (-1: dynamic, or a gear decides)
    dynamic_batch_size: str = ""   # ge.dynamicBatchSize: N,N,... (one copy of the graph each)
    dynamic_image_size: str = ""   # ge.dynamicImageSize: H,W;H,W
    dynamic_dims: str = ""         # ge.dynamicDims: D,D;D,D
    switchn: bool = False          # gears sunk as a StreamSwitchN over gear streams, not labels
    autofuse: bool = False         # GE's autofuse (AUTOFUSE_FLAGS=--enable_autofuse=true)
    exec_timeout: int = DEFAULT_EXEC_TIMEOUT_MS  # ge.exec.graphExecTimeout, ms of device time


def _flag(text: str) -> bool:
    if text in ("on", "true", "1", "yes"):
        return True
    if text in ("off", "false", "0", "no"):
        return False
    raise ValueError("expected on or off")


def _task_count(text: str) -> int | None:
    from ge_core.compiler.stream.stream_split import RESERVED_TASK_NUM   # the build's module
    if text == CHIP:
        return None
    count = int(text)
    if count <= RESERVED_TASK_NUM:
        raise ValueError(f"a stream keeps {RESERVED_TASK_NUM} tasks in reserve: give more")
    return count


def _soc_version(text: str) -> str:
    try:
        soc_profile(text)
    except InvalidParamError as exc:
        raise ValueError(str(exc).removeprefix(f"soc version {text!r} ")) from None
    return text


CHIP = "chip"   # max-task-count's value for "what the chip's runtime answers"
_PARSERS: dict[str, Callable[[str], Any]] = {"soc_version": _soc_version, "seed": int, "exclude_engines": str,
                                             "race_check": _flag, "stream_max_parallel_num": int,
                                             "single_stream": _flag, "minimise_events": _flag,
                                             "max_task_count": _task_count,
                                             "hcom_parallel": _flag, "input": str,
                                             "input_shape": str, "dynamic_batch_size": str,
                                             "dynamic_image_size": str, "dynamic_dims": str,
                                             "switchn": _flag, "autofuse": _flag,
                                             "exec_timeout": parse_timeout}
HELP = {
    "seed": "seed of the generated model inputs (default 0)",
    "exclude-engines": "engines the placer may not use, A,B (ge.exec.exclude_engines)",
    "race-check": "on/off: check stream orderings against memory accesses",
    "stream-max-parallel-num": "new streams per engine, round-robin (ge.streamMaxParallelNum)",
    "single-stream": "on/off: every node on one stream (ge.enableSingleStream)",
    "minimise-events": "on/off: keep only the events no other ordering implies",
    "soc-version": "the chip the build and the runtime model (ge.socVersion): "
                   + ", ".join(f"{short}*" for short in SOC_PROFILES)
                   + f" (default {DEFAULT_SOC_VERSION})",
    "max-task-count": "tasks a stream may hold (maxTaskNumPerStream); SplitStreams cuts longer "
                      f"ones ({CHIP}: what the chip's runtime answers)",
    "hcom-parallel": "on/off: an AllReduce's successors get new streams (ge.hcomParallel)",
    "input": "NAME=FILE.npy,...: input values (others seeded random); their shapes fix the "
             "model's symbolic dims",
    "input-shape": "input dims NAME:D,D;... (ge.inputShape): fixes symbolic dims (every one "
                   "known: sunk, else hybrid); -1 where a gear decides",
    "dynamic-batch-size": "gears of the batch dim: N,N,... (ge.dynamicBatchSize)",
    "dynamic-image-size": "gears of an image's H,W: H,W;H,W (ge.dynamicImageSize)",
    "dynamic-dims": "gears of the -1 dims: D,D;D,D (ge.dynamicDims)",
    "switchn": "on/off: sink the gears as a StreamSwitchN over gear streams, not labels",
    "autofuse": "on/off: fuse pointwise chains into AscBackend nodes (GE's autofuse)",
    "exec-timeout": "ms of device time an execution may run before it is ended, -1 never "
                    "(ge.exec.graphExecTimeout)",
}


def names() -> list[str]:
    return [f.name.replace("_", "-") for f in fields(Settings)]


def with_setting(settings: Settings, name: str, text: str) -> Settings:
    key = name.replace("-", "_")
    if key not in _PARSERS:
        raise SettingError(f"no setting {name!r} (settings: {', '.join(names())})")
    try:
        value = _PARSERS[key](text)
    except ValueError as exc:
        raise SettingError(f"set {name}: bad value {text!r}: {exc}") from exc
    return replace(settings, **{key: value})


def shown(settings: Settings) -> list[tuple[str, str]]:
    """Every setting as (name, value text), the way `set` takes it."""
    def text(v: Any) -> str:
        if v is None:
            return CHIP
        return ("on" if v else "off") if isinstance(v, bool) else str(v)
    return [(f.name.replace("_", "-"), text(getattr(settings, f.name))) for f in fields(Settings)]
