"""A session: the debugger of the current target, the command table, and the log of every
command with what it answered. All three faces drive a DebugSession: the REPL and the TUI with typed
lines, `gewb run` with a script's. Relative paths resolve against ``base_dir`` (the working
directory for the REPL, the script's directory for a script).

A line the user types may open any target. While a script runs (``running``), only the host
programs the user agreed to let it run (workbench/script/consent.py) can be opened; ``consent``
is how this session's face agrees: a flag given up front, or a question it asks. What the
session may read, run and write is ``access``'s to decide (workbench/script/access.py): the
user's own, or a served tab's sandbox."""
from __future__ import annotations

import shlex
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from workbench.commands.command import UsageError
from workbench.commands.render import transcript_entry
from workbench.commands.table import COMMANDS
from workbench.debugger.engine import Debugger
from workbench.debugger.fault_stops import FaultStops
from workbench.debugger.outcomes import Error, Outcome
from workbench.debugger.targets import Target, open_target
from workbench.debugger.targets.target import target_path
from workbench.debugger.targets.settings import Settings, with_setting
from workbench.script.access import Access, input_files
from workbench.script.consent import Consent, check_program


@dataclass(frozen=True)
class Entry:
    line: str
    outcomes: list[Outcome]
    recorded: bool   # save-script keeps it: a recordable command that did not fail


class DebugSession:
    def __init__(self, base_dir: Path | None = None, trace_hash: bool = False,
                 consent: Consent = Consent(), access: Access = Access()) -> None:
        self.base_dir = base_dir if base_dir is not None else Path.cwd()
        self.consent = consent
        self.access = access
        self.programs: frozenset[Path] | None = None   # None: the user is typing
        self.scripts: list[Path] = []   # the scripts running, innermost last
        self.commands = COMMANDS
        self.debugger: Debugger | None = None
        self.fault_stops = FaultStops()   # `handle`: set before a target too, kept across them
        self.settings = Settings()
        self.trace_hash = trace_hash
        self.log: list[Entry] = []

    def execute(self, line: str) -> list[Outcome]:
        """Run one command line; a bad one answers with one Error naming what is wrong."""
        text = line.strip()
        if not text or text.startswith("#"):
            return []
        outcomes, record = self.run_line(text)
        failed = any(isinstance(o, Error) for o in outcomes)
        self.log.append(Entry(text, outcomes, record and not failed))
        return outcomes

    def run_line(self, text: str) -> tuple[list[Outcome], bool]:
        """One command line's outcomes, and whether save-script keeps it; not logged."""
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
        return outcomes, record

    @contextmanager
    def running(self, script: Path, programs: frozenset[Path]) -> Iterator[None]:
        """While a script runs: its paths resolve against its folder, and of host programs
        only ``programs`` (those the user agreed to) can be opened."""
        saved = self.base_dir, self.programs
        self.base_dir, self.programs = script.parent, programs
        self.scripts.append(script)
        try:
            yield
        finally:
            self.base_dir, self.programs = saved
            self.scripts.pop()

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
        # the sandbox decides before the file is looked at: a served tab must not learn
        # whether a path outside it exists ("no such target" against a refusal)
        self.access.check_read(target_path(spec, self.base_dir), spec, "target")
        target = open_target(spec, self.base_dir, self.settings)
        if target.runs_code:
            if self.programs is not None:
                check_program(spec, target.path, self.programs)
            self.access.check_run(target.path, spec)
        if self.debugger is None:
            self.debugger = Debugger(target, trace_hash=self.trace_hash,
                                     fault_stops=self.fault_stops)
        else:
            self.debugger.retarget(target)
        return target

    def configure(self, name: str, value: str) -> None:
        if name == "input":   # its files are read relative to the working directory
            for file in input_files(value):
                self.access.check_read(Path(file), f"{name} {value}", "set")
        self.settings = with_setting(self.settings, name, value)
        if self.debugger is not None:
            self.debugger.retarget(self.debugger.target.with_settings(self.settings))

    def path(self, text: str) -> Path:
        """A file a command reads (source)."""
        path = self.base_dir / text
        self.access.check_read(path, text, "open")
        return path

    def save(self, text: str, files: dict[str, str | bytes], what: str) -> None:
        """Save ``files``: one at ``text`` (save-script, export), or several into the folder
        ``text`` (dump); where they may go is ``access``'s to decide."""
        # a script's line (self.programs set, paths from its folder) writes only where allowed
        scripted = self.programs is not None
        base = self.access.write_base(self.base_dir) if scripted else self.base_dir
        self.access.write(base / text, text, files, what,
                          self.base_dir if scripted else None, self.programs or frozenset())

    def close(self) -> None:
        if self.debugger is not None:
            self.debugger.close()
