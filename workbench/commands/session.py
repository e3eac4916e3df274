"""A session: the debugger of the current target, the command table, and the log of every
command with what it answered. All three faces drive a Session: the REPL and the TUI with typed
lines, `gewb run` with a script's. Relative paths resolve against ``base_dir`` (the working
directory for the REPL, the script's directory for a script)."""
from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from workbench.commands.command import UsageError
from workbench.commands.render import transcript_entry
from workbench.commands.table import COMMANDS
from workbench.debugger.engine import Debugger
from workbench.debugger.outcomes import Error, Outcome
from workbench.debugger.targets import Target, open_target
from workbench.debugger.targets.settings import Settings, with_setting


@dataclass(frozen=True)
class Entry:
    line: str
    outcomes: list[Outcome]
    recorded: bool   # save-script keeps it: a recordable command that did not fail


class Session:
    def __init__(self, base_dir: Path | None = None, trace_hash: bool = False) -> None:
        self.base_dir = base_dir if base_dir is not None else Path.cwd()
        self.commands = COMMANDS
        self.debugger: Debugger | None = None
        self.settings = Settings()
        self.trace_hash = trace_hash
        self.log: list[Entry] = []

    def execute(self, line: str) -> list[Outcome]:
        """Run one command line; a bad one answers with one Error naming what is wrong."""
        text = line.strip()
        if not text or text.startswith("#"):
            return []
        name, _, rest = text.partition(" ")
        record = False
        try:
            cmd = self.commands.lookup(name)
            record = cmd.record
            outcomes = cmd.run(self, [rest.strip()] if cmd.raw else shlex.split(rest))
        except ValueError as exc:   # UsageError, BreakpointError ... all name what is wrong
            outcomes = [Error(str(exc))]
        except Exception as exc:    # a bug of ours: still one line, never a traceback
            outcomes = [Error(f"{name}: internal error: {type(exc).__name__}: {exc}")]
        failed = any(isinstance(o, Error) for o in outcomes)
        self.log.append(Entry(text, outcomes, record and not failed))
        return outcomes

    def recorded_lines(self) -> list[str]:
        return [e.line for e in self.log if e.recorded]

    def transcript(self) -> str:
        """The transcript of what save-script keeps: what replaying the script prints."""
        return "".join(line + "\n" for e in self.log if e.recorded
                       for line in transcript_entry(e.line, e.outcomes))

    # -- what commands use ---------------------------------------------------------------------
    def debugger_or_fail(self) -> Debugger:
        if self.debugger is None:
            raise UsageError("no target: open one with `target FILE`")
        return self.debugger

    def open(self, spec: str) -> Target:
        target = open_target(spec, self.base_dir, self.settings)
        if self.debugger is None:
            self.debugger = Debugger(target, trace_hash=self.trace_hash)
        else:
            self.debugger.retarget(target)
        return target

    def configure(self, name: str, value: str) -> None:
        self.settings = with_setting(self.settings, name, value)
        if self.debugger is not None:
            self.debugger.retarget(self.debugger.target.with_settings(self.settings))

    def path(self, text: str) -> Path:
        return self.base_dir / text

    def close(self) -> None:
        if self.debugger is not None:
            self.debugger.close()
