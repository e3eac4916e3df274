"""What a session may touch: the files it opens, the host programs it runs, where what it saves
goes. Decided here only; the commands ask the session, the session asks this.

Two policies exist. The user's own (the REPL, `gewb tui`, `gewb run`): any file, and a script's
writes kept inside its own folder (or ``--output-dir``) unless its header names them and the
user agreed (workbench/script/consent.py). A served tab's (`gewb serve`, the student's browser):
only the served lesson's folder, the bundled samples and lessons, only the programs the teacher
agreed to, and every file it saves is delivered to the browser instead of written on the server.
"""
from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from workbench.output_path import output_dir, write_output
from workbench.script.consent import FLAG, WRITES_TAG, ConsentRefused

Deliver = Callable[[str, bytes], None]   # (file name, content) -> sent to the browser
BUNDLED = Path(__file__).resolve().parents[2] / "sample_models"


class AccessRefused(ValueError):
    """A served tab asked for something outside its sandbox: one line naming it."""


def _inside(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _light_models() -> Path:
    from workbench.debugger.targets.target import light_model
    return light_model("x").parent


@dataclass(frozen=True)
class Access:
    """``roots``: the folders (or files) a session may read; None: anything. ``programs``: the
    host programs any line may run, typed or not; None: a typed line may run any.
    ``deliver``: where saved files go instead of the disk (a served tab's browser)."""
    roots: tuple[Path, ...] | None = None
    programs: frozenset[Path] | None = None
    deliver: Deliver | None = field(default=None, compare=False)
    output_dir: Path | None = None   # gewb run --output-dir: a script's writes land here

    @property
    def served(self) -> bool:
        return self.roots is not None

    # -- the served tab's policy, as the server hands it to the tab's process --------------------
    @classmethod
    def served_tab(cls, opened: Path, programs: frozenset[Path]) -> Access:
        """A tab of `gewb serve`: the served lesson's folder (or the served target), the
        bundled samples, lessons and onnx's light models; only ``programs``."""
        home = opened.parent if opened.suffix == ".gwb" else opened
        return cls(roots=(home.resolve(), BUNDLED, _light_models()), programs=programs)

    def to_json(self) -> str:
        return json.dumps({"roots": [str(r) for r in self.roots or ()],
                           "programs": sorted(str(p) for p in self.programs or ())})

    @classmethod
    def from_json(cls, text: str) -> Access:
        data = json.loads(text)
        return cls(roots=tuple(Path(r) for r in data["roots"]),
                   programs=frozenset(Path(p) for p in data["programs"]))

    # -- the checks --------------------------------------------------------------------------------
    def may_read(self, path: Path) -> bool:
        return self.roots is None or _inside(path.resolve(), self.roots)

    def check_read(self, path: Path, spec: str, what: str) -> None:
        if not self.may_read(path):
            raise AccessRefused(f"{what} {spec}: a served tab opens only the lesson's files and "
                                f"the bundled samples")

    def check_run(self, program: Path, spec: str) -> None:
        if self.programs is not None and program.resolve() not in self.programs:
            raise AccessRefused(f"target {spec}: a served tab runs only the host programs its "
                                f"lesson names and the teacher agreed to (gewb serve {FLAG})")

    def write(self, path: Path, shown: str, files: Mapping[str, str | bytes], what: str,
              script_dir: Path | None, agreed: frozenset[Path]) -> None:
        """Save ``files`` (one, at ``path``; several: into the folder ``path``). A served tab
        delivers them to its browser; a script's line (``script_dir``: its folder) writes
        only inside that folder or ``output_dir``, or where its header names and the user
        agreed to (``agreed``)."""
        if self.deliver is not None:
            name, data = _one_file(path, files)
            self.deliver(name, data)
            return
        if script_dir is not None:
            self._check_script_write(path, shown, what, script_dir, agreed)
        if len(files) == 1 and path.name in files:
            write_output(path, lambda p: _write(p, files[path.name]), what, shown)
            return
        directory = output_dir(path, what, shown)
        for name, data in files.items():
            write_output(directory / name, lambda p, d=data: _write(p, d), what,
                         f"{shown.rstrip('/')}/{name}")

    def _check_script_write(self, path: Path, shown: str, what: str, script_dir: Path,
                            agreed: frozenset[Path]) -> None:
        where = path.resolve()
        homes = (script_dir.resolve(),) + ((self.output_dir.resolve(),) if self.output_dir else ())
        if _inside(where, homes) or where in agreed:
            return
        raise ConsentRefused(f"{what} {shown}: a script writes only inside its folder or "
                             f"--output-dir; name it in the header (`# {WRITES_TAG} {shown}`) "
                             f"and agree with {FLAG}")

    def write_base(self, script_dir: Path) -> Path:
        """Where a script's relative write paths resolve: --output-dir, else its folder."""
        return self.output_dir.resolve() if self.output_dir is not None else script_dir


def _write(path: Path, data: str | bytes) -> None:
    path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)


def _one_file(path: Path, files: Mapping[str, str | bytes]) -> tuple[str, bytes]:
    """What a browser receives: the one file, or the several zipped as FOLDER.zip."""
    def raw(data: str | bytes) -> bytes:
        return data if isinstance(data, bytes) else data.encode()
    if len(files) == 1 and path.name in files:
        return path.name, raw(files[path.name])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(f"{path.name}/{name}", raw(data))
    return f"{path.name or 'dump'}.zip", buffer.getvalue()


def input_files(value: str) -> list[str]:
    """The files of `set input NAME=FILE,...` (read relative to the working directory)."""
    return [spec.partition("=")[2] for spec in value.split(",") if "=" in spec]
