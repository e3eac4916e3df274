"""A host program's source as the debugger shows it: its lines, a window around one. Where the
parked program is and which line submitted each SQE or met each fault, the host runner notes
as the run passes them (RunState.program: HostProgramObserver). An ONNX model's frames are the
compile's own: node < pass < stage < phase."""
from __future__ import annotations

import linecache
from pathlib import Path

from workbench.debugger.tracker import Tracker


def source_lines(script: Path) -> list[str]:
    return linecache.getlines(str(script))


def code_lines(script: Path) -> set[int]:
    """The lines of ``script`` where a statement starts (pdb's breakable lines): a line
    breakpoint anywhere else would never be hit. Empty when the script does not compile."""
    try:
        code = compile("".join(source_lines(script)), str(script), "exec")
    except (SyntaxError, ValueError):
        return set()
    lines: set[int] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        lines |= {line for _, _, line in c.co_lines() if line is not None}
        todo += [k for k in c.co_consts if isinstance(k, type(code))]
    return lines


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
