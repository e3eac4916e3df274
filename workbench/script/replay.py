"""Replaying a .gwb script headless: every line through a Session whose paths resolve against
the script's directory, and the transcript of what it answered. A line that fails stops the
replay (unless keep_going) with ``file:line: reason``."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.commands.render import transcript_entry
from workbench.commands.session import Session
from workbench.debugger.outcomes import Error
from workbench.script.script_lines import command_lines


@dataclass
class Replay:
    lines: list[str] = field(default_factory=list)     # the transcript
    errors: list[str] = field(default_factory=list)    # file:line: reason, in order

    @property
    def transcript(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def replay(script: Path, keep_going: bool = False) -> Replay:
    result = Replay()
    session = Session(base_dir=script.resolve().parent)
    try:
        for lineno, line in command_lines(script):
            outcomes = session.execute(line)
            errors = [o for o in outcomes if isinstance(o, Error)]
            result.lines += transcript_entry(line, [o for o in outcomes
                                                    if not isinstance(o, Error)])
            for e in errors:
                where = f"{script.name}:{lineno}: {e.message}"
                result.errors.append(where)
                result.lines.append(f"error: {where}")
            if errors and not keep_going:
                break
    finally:
        session.close()
    return result
