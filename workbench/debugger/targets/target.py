"""What the debugger runs: an ONNX model, an OM file or a host program, named as the user wrote
it. ``light:NAME`` names one of the real models the onnx package ships (light:resnet50)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from importlib.util import find_spec
from pathlib import Path

from npu_emu.runtime import RuntimeConfig
from workbench.debugger.targets.host_program import HOST_PROGRAM_PHASES
from workbench.debugger.targets.onnx_program import OM_PHASES, ONNX_PHASES
from workbench.debugger.targets.program import Phase, RunState
from workbench.debugger.targets.settings import Settings
from workbench.debugger.targets.target_kind import Capability, TargetKind


class TargetError(ValueError):
    """A target that cannot be opened: the message names it."""


@dataclass(frozen=True)
class Target:
    spec: str                 # as written: shown in transcripts, saved in scripts
    path: Path
    kind: TargetKind
    phases: tuple[Phase, ...]
    granularity: str          # the stepping unit a session starts with
    settings: Settings = Settings()

    def new_state(self) -> RunState:
        return RunState(self.path, self.settings)

    def runtime_config(self) -> RuntimeConfig:
        return RuntimeConfig(race_check=self.settings.race_check,
                             soc_version=self.settings.soc_version)

    def with_settings(self, settings: Settings) -> "Target":
        return replace(self, settings=settings)

    @property
    def runs_code(self) -> bool:
        """A host program: opening it runs Python with the user's rights."""
        return self.kind.has(Capability.SOURCE)

    @property
    def label(self) -> str:
        phases = " > ".join(p.name for p in self.phases)
        return f"{self.path.name}: {self.kind.label}, phases {phases}"


def light_model(name: str) -> Path:
    """One of the real models the onnx wheel ships for its backend tests (found without
    importing onnx: opening a target does not parse it)."""
    return (Path(find_spec("onnx").origin).parent / "backend" / "test" / "data" / "light"
            / f"light_{name}.onnx")


def target_path(spec: str, base_dir: Path) -> Path:
    """The file a `target` spec names (light:NAME: one of the onnx wheel's light models)."""
    return light_model(spec[6:]) if spec.startswith("light:") else base_dir / spec


def open_target(spec: str, base_dir: Path, settings: Settings = Settings()) -> Target:
    path = target_path(spec, base_dir)
    if not path.is_file():
        raise TargetError(f"no such target: {spec}")
    suffix = path.suffix.lower()
    if suffix == ".onnx":
        return Target(spec, path.resolve(), TargetKind.ONNX_MODEL, ONNX_PHASES, "pass", settings)
    if suffix == ".py":
        return Target(spec, path.resolve(), TargetKind.HOST_PROGRAM,
                      HOST_PROGRAM_PHASES, "sqe", settings)
    if suffix == ".om":
        return Target(spec, path.resolve(), TargetKind.OM_MODEL, OM_PHASES, "task", settings)
    raise TargetError(f"{spec}: not a target (an .onnx model, an .om file or a .py host program)")
