"""A host program's source as the debugger sees it: the line the parked program is on (its
frames in the script, innermost first), and the line that
submitted each SQE or met each fault, recorded as the run passes them. An ONNX model's frames
are the compile's own: node < pass < stage < phase."""
from __future__ import annotations

import linecache
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from npu_emu.device import SqeSubmitted
from npu_emu.runtime import FaultFound
from npu_emu.trace import TraceEvent
from workbench.debugger.run import Run
from workbench.debugger.tracker import Tracker
from workbench.debugger.views.run_recorder import RunRecorder


@dataclass(frozen=True)
class SourceFrame:
    line: int
    function: str
    text: str


def _script_line(frame: FrameType | None, script: str) -> int | None:
    while frame is not None:
        if frame.f_code.co_filename == script:
            return frame.f_lineno
        frame = frame.f_back
    return None


class SubmitLines(RunRecorder):
    """Where in the script each SQE was submitted (stream, SQE index -> line) and each fault
    met. AutoSplit submits a model's SQEs at its build end: that line, then."""
    KINDS = (SqeSubmitted.__name__, FaultFound.__name__)

    def __init__(self, script: Path) -> None:
        super().__init__()
        self.script = str(script)
        self.sqes: dict[tuple[int, int], int] = {}
        self.faults: list[tuple[str, int | None]] = []
        self.thread: int | None = None   # the run's worker: where the parked frames are

    def new_run(self, run: Run) -> None:
        self.sqes, self.faults, self.thread = {}, [], None

    def record(self, e: TraceEvent) -> None:
        self.thread = threading.get_ident()
        line = _script_line(sys._getframe(), self.script)
        if isinstance(e, SqeSubmitted):
            if line is not None and e.task.stream is not None:
                self.sqes[(e.task.stream.id, e.task.pos)] = line
        else:
            self.faults.append((f"{e.fault}: {e.message}", line))


def parked(script: Path, thread: int | None = None) -> tuple[SourceFrame, ...]:
    """The frames in ``script`` of the parked program, innermost first; none when no thread
    is inside it (not started, or finished). Only a run's worker runs the script, and one run
    at a time is alive, so without the worker's id the thread found in the script is it."""
    path = str(script)
    frames = sys._current_frames()
    for top in [frames[thread]] if thread in frames else list(frames.values()):
        found = []
        frame = top
        while frame is not None:
            if frame.f_code.co_filename == path:
                found.append(SourceFrame(frame.f_lineno, frame.f_code.co_name,
                                         linecache.getline(path, frame.f_lineno).strip()))
            frame = frame.f_back
        if found:
            return tuple(found)
    return ()


def source_lines(script: Path) -> list[str]:
    return linecache.getlines(str(script))


def window(script: Path, center: int, context: int = 5) -> list[tuple[int, str]]:
    """Numbered lines around ``center``."""
    lines = source_lines(script)
    first = max(1, center - context)
    return [(n, lines[n - 1].rstrip("\n")) for n in range(first, min(len(lines),
                                                                     center + context) + 1)]


def compile_frames(tracker: Tracker) -> list[str]:
    """The compile's frames, innermost first, from the tracker."""
    frames = []
    if tracker.node:
        frames.append(f"node %{tracker.node} ({tracker.node_type}) of graph "
                      f"{tracker.node_graph}")
    if tracker.inner_pass:
        frames.append(f"node pass {tracker.inner_pass}")
    if tracker.pass_name:
        frames.append(f"pass {tracker.pass_name} on graph {tracker.pass_graph}")
    if tracker.stage:
        frames.append(f"stage {tracker.stage}")
    if tracker.phase:
        frames.append(f"phase {tracker.phase}")
    return frames
