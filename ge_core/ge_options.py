"""The GE options every face takes, in one table (GE's ge_api_types.h and ge_common_api_types.h).

Each row is one option under one name on every face: `gewb compile --stream-max-parallel-num 4`,
the debugger's `set stream-max-parallel-num 4`, and ``ge.streamMaxParallelNum`` in the option map
a Session or GraphManager.from_ge_options takes. The faces make their flags, `set` names,
completion and help from the rows; only GraphManager turns the option map into the compiler's
options. Rows GE has no option for (the runtime's limits, env switches, our own lessons) have a
``gewb.`` key, and their help says where GE takes them from.

This module imports nothing heavy: the faces read it before GE is loaded.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable, Iterable, Mapping

from ge_core.exec_timeout import DEFAULT_EXEC_TIMEOUT_MS, parse_timeout
from npu_emu.base.errors import InvalidParamError
from npu_emu.driver.soc import DEFAULT_SOC_VERSION, SOC_PROFILES, soc_profile


class Stage(Enum):
    """When GE reads the option: an OM file was compiled and built with its options fixed."""
    COMPILE = "compile"
    BUILD = "build"
    EXECUTE = "execute"


class RunMode(Enum):
    """How GraphManager runs a model (`gewb exec --mode`): AUTO as GE's ModelManager decides
    (sunk, or hybrid when it must), or one runtime asked for by name."""
    AUTO = "auto"
    SINK = "sink"      # v1: the model's tasks sunk to the device (DavinciModel)
    HYBRID = "hybrid"  # host-scheduled node by node (HybridDavinciModel)
    V2 = "v2"          # lowered to an ExecuteGraph


def _task_count(text: str) -> int:
    from ge_core.compiler.stream.stream_split import RESERVED_TASK_NUM   # the build's module
    count = int(text)
    if count != 0 and count <= RESERVED_TASK_NUM:
        raise ValueError(f"a stream keeps {RESERVED_TASK_NUM} tasks in reserve: give more "
                         f"(or 0: the chip's)")
    return count


def _soc_version(text: str) -> str:
    try:
        soc_profile(text)
    except InvalidParamError:
        raise ValueError("not a modelled chip; the chips are "
                         + ", ".join(f"{short}*" for short in SOC_PROFILES)) from None
    return text


MEMORY_PRIORITY = "MemoryPriority"   # GE's kMemoryPriority (ge_types.h)


def _memory_policy(text: str) -> str:
    if text not in ("", MEMORY_PRIORITY):
        raise ValueError(f"expected {MEMORY_PRIORITY} (or nothing: GE's default)")
    return text


def _parallel_num(text: str) -> int:
    count = int(text)
    if count < 1:
        raise ValueError("expected 1 or more")
    return count


@dataclass(frozen=True)
class GeOption:
    name: str                    # ours, kebab-case: --NAME and `set NAME`
    key: str                     # GE's option key (ge.*), or ours (gewb.*) where GE has none
    type: type                   # bool, int or str
    default: Any
    help: str
    stage: Stage | None           # None: not GE's (a debugger's own setting)
    metavar: str = ""
    ge_on_off: tuple[str, str] = ("1", "0")      # a bool's text in GE's option map
    parse_text: Callable[[str], Any] | None = None   # checks beyond the type's

    @property
    def choices(self) -> tuple[str, ...]:
        """What completes a value (a bool's on/off; the rest are free text)."""
        return ("on", "off") if self.type is bool else ()

    @property
    def attr(self) -> str:
        """The name as a Python identifier (argparse's dest, Settings' field)."""
        return self.name.replace("-", "_")

    def parse(self, text: str) -> Any:
        """A value as a user types it (bools: on/off); ValueError names what is expected."""
        if self.type is bool:
            return parse_on_off(text)
        if self.type is int:   # no number at all is refused in our words, before any check
            parse_whole(text)
        return (self.parse_text or self.type)(text)

    def to_ge(self, value: Any) -> str:
        if self.type is bool:
            return self.ge_on_off[0] if value else self.ge_on_off[1]
        return str(value)

    def from_ge(self, text: str) -> Any:
        if self.type is bool:
            return text.lower() == self.ge_on_off[0]
        return self.parse(text)


def parse_whole(text: str) -> int:
    """A whole number as a user types it; ValueError in our words, not int()'s."""
    try:
        return int(text)
    except ValueError:
        raise ValueError("expected a whole number") from None


def parse_on_off(text: str) -> bool:
    if text in ("on", "true", "1", "yes"):
        return True
    if text in ("off", "false", "0", "no"):
        return False
    raise ValueError("expected on or off")


_C, _B, _X = Stage.COMPILE, Stage.BUILD, Stage.EXECUTE
GE_OPTIONS: tuple[GeOption, ...] = (
    GeOption("exclude-engines", "ge.exec.exclude_engines", str, "",
             "engines the placer may not use, A,B", _C, "A,B"),
    GeOption("autofuse", "gewb.autofuse", bool, False,
             "fuse pointwise chains into AscBackend nodes (GE: "
             "AUTOFUSE_FLAGS=--enable_autofuse=true)", _C),
    GeOption("input-shape", "ge.inputShape", str, "",
             "input dims NAME:D,D;...: size the dims a model leaves symbolic; -1 keeps one "
             "dynamic, or marks where a gear gives the value", _C, "NAME:D,D;..."),
    GeOption("dynamic-batch-size", "ge.dynamicBatchSize", str, "",
             "gears of the batch dim: one static copy of the graph per size", _C, "N,N,..."),
    GeOption("dynamic-image-size", "ge.dynamicImageSize", str, "",
             "gears of an image's H,W: one copy per pair", _C, "H,W;H,W"),
    GeOption("dynamic-dims", "ge.dynamicDims", str, "",
             "gears of the -1 dims: one copy per set of values", _C, "D,D;D,D"),
    GeOption("switchn", "gewb.multiBatchWithSwitchn", bool, False,
             "sink the gears as a StreamSwitchN over gear streams, not labels (GE r1.x: "
             "MULTI_BATCH_WITH_SWITCHN)", _B),
    GeOption("stream-max-parallel-num", "ge.streamMaxParallelNum", int, 1,
             "new streams per engine, round-robin", _B, "N", parse_text=_parallel_num),
    GeOption("single-stream", "ge.enableSingleStream", bool, False,
             "every node on one stream", _B, ge_on_off=("true", "false")),
    GeOption("notify", "ge.event", bool, False,
             "streams wait on notifies, not events (ge.event=notify)", _B,
             ge_on_off=("notify", "event")),
    GeOption("hcom-parallel", "ge.hcomParallel", bool, False,
             "an AllReduce's successors get new streams", _B),
    GeOption("minimise-events", "gewb.minimiseEvents", bool, False,
             "beyond GE: keep only the events no other ordering implies", _B),
    GeOption("soc-version", "ge.socVersion", str, DEFAULT_SOC_VERSION,
             "the chip the build and the runtime model: "
             + ", ".join(f"{short}*" for short in SOC_PROFILES)
             + "; GE asks the runtime for its limits", _B, "SOC", parse_text=_soc_version),
    GeOption("max-task-count", "gewb.maxTaskCount", int, 0,
             "tasks a stream may hold before SplitStreams cuts; 0: the chip's "
             "maxTaskNumPerStream, as the runtime answers (2013 on a 910B)", _B, "N",
             parse_text=_task_count),
    GeOption("auto-split", "gewb.autoSplit", bool, False,
             "beyond GE: build as if the runtime grew streams itself (AutoSplit) and skip "
             "SplitStreams; GE asks the runtime, and a 950 says yes", _B),
    GeOption("no-reuse", "ge.exec.disableReuseMemory", bool, False,
             "every tensor its own memory block", _B),
    GeOption("memory-optimization-policy", "ge.exec.memoryOptimizationPolicy", str, "",
             f"{MEMORY_PRIORITY}: HybridMemAssigner also runs its four range BinaryBlock "
             "variants (GE's other MemoryPriority effects, on folding, topological order and "
             "streams, are not modelled)", _B, "POLICY", parse_text=_memory_policy),
    GeOption("offset-assigners", "gewb.offsetAssigners", bool, False,
             "(not GE) HybridMemAssigner also runs this project's offset assigners, "
             "greedy_by_size and best_fit_search, which place a tensor across two freed "
             "blocks and often reach the lower bound", _B),
    GeOption("exec-timeout", "ge.exec.graphExecTimeout", int, DEFAULT_EXEC_TIMEOUT_MS,
             "ms of device time an execution may run before it is ended, -1 never", _X, "MS",
             parse_text=parse_timeout),
)
BY_NAME: dict[str, GeOption] = {o.name: o for o in GE_OPTIONS}
BY_KEY: dict[str, GeOption] = {o.key: o for o in GE_OPTIONS}


def option_map(values: Mapping[str, Any],
               options: Iterable[GeOption] = GE_OPTIONS) -> dict[str, str]:
    """Typed values by attr (argparse's namespace, the debugger's settings) -> GE's option map,
    holding the options that differ from their defaults."""
    return {o.key: o.to_ge(values[o.attr]) for o in options
            if o.attr in values and values[o.attr] != o.default}


def help_rows(options: Iterable[GeOption] = GE_OPTIONS) -> list[tuple[str, str, str, str]]:
    """(name, GE's key, default, help) per option: what `help set` and --help show."""
    return [(o.name, o.key, shown_value(o, o.default), o.help) for o in options]


def shown_value(option: GeOption, value: Any) -> str:
    return ("on" if value else "off") if option.type is bool else str(value)
