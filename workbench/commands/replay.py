"""Replaying a .gwb script headless (`gewb run`): the one player (workbench/script/player.py)
plays every line through a DebugSession whose paths resolve against the script's directory, and the
transcript is what it answered. A line that fails stops the replay (unless keep_going) with
``file:line: reason``. The host programs the script's header names run only with the user's
consent, settled before any line runs."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.commands.render import transcript_entry
from workbench.commands.session import DebugSession
from workbench.script.access import Access
from workbench.script.consent import Consent
from workbench.script.player import Player


@dataclass
class Replay:
    lines: list[str] = field(default_factory=list)     # the transcript
    errors: list[str] = field(default_factory=list)    # file:line: reason, in order

    @property
    def transcript(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def replay(script: Path, keep_going: bool = False, consent: Consent = Consent(),
           access: Access = Access()) -> Replay:
    """ScriptError (not UTF-8) or ConsentRefused before anything runs."""
    player = Player.open(script)
    player.keep_going = keep_going
    player.agree(consent)
    result = Replay()
    session = DebugSession(base_dir=script.resolve().parent, consent=consent, access=access)
    try:
        for played in player.play(session, session.execute):
            result.lines += transcript_entry(played.lines[0][1], list(played.outcomes))
            result.errors += played.errors
            result.lines += [f"error: {where}" for where in played.errors]
    finally:
        session.close()
    return result
