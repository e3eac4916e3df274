"""Replaying a .gwb script headless: every line through a DebugSession whose paths resolve against
the script's directory, and the transcript of what it answered. A line that fails stops the
replay (unless keep_going) with ``file:line: reason``. The host programs the script's header
names run only with the user's consent (consent.py), asked before any line runs."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.commands.render import transcript_entry
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error, Quit
from workbench.script.consent import Consent, consent_to_programs
from workbench.script.script_lines import command_lines, read_script


@dataclass
class Replay:
    lines: list[str] = field(default_factory=list)     # the transcript
    errors: list[str] = field(default_factory=list)    # file:line: reason, in order

    @property
    def transcript(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def replay(script: Path, keep_going: bool = False, consent: Consent = Consent()) -> Replay:
    """ScriptError (not UTF-8) or ConsentRefused before anything runs."""
    text = read_script(script)
    programs = consent_to_programs(script, text, consent)
    result = Replay()
    session = DebugSession(base_dir=script.resolve().parent, consent=consent)
    try:
        with session.running(script.resolve(), programs):
            for lineno, line in command_lines(script, text):
                outcomes = session.execute(line)
                errors = [o for o in outcomes if isinstance(o, Error)]
                result.lines += transcript_entry(line, [o for o in outcomes
                                                        if not isinstance(o, Error)])
                for e in errors:
                    where = f"{script.name}:{lineno}: {e.message}"
                    result.errors.append(where)
                    result.lines.append(f"error: {where}")
                if errors and not keep_going or any(isinstance(o, Quit) for o in outcomes):
                    break
    finally:
        session.close()
    return result
