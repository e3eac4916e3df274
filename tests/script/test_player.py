"""The one .gwb player (workbench/script/player.py): the same steps, consent, errors and pauses
for every face. A `say` block is one step and one paragraph; a `pause` ends a step; the first
failing line stops the script as file:line (unless keep_going); `quit` stops it; nothing runs
before the user agreed to the programs its header names. The faces agree: `gewb run`, `source`
and the app's lesson step through the same player, so they report the same file:line."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest

from workbench.commands.replay import replay
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error, Outcome, Pause, Printed, Quit, Say
from workbench.script.consent import Consent, ConsentRefused
from workbench.script.player import Player


class Host:
    """A session stand-in that records what ran, and under which script and programs."""
    def __init__(self) -> None:
        self.ran: list[tuple[str, frozenset[Path] | None]] = []
        self.programs: frozenset[Path] | None = None

    @contextmanager
    def running(self, script: Path, programs: frozenset[Path]):
        self.programs = programs
        try:
            yield
        finally:
            self.programs = None

    def run(self, line: str) -> list[Outcome]:
        self.ran.append((line, self.programs))
        word, _, rest = line.partition(" ")
        return {"say": [Say(rest)], "pause": [Pause()], "quit": [Quit()],
                "bad": [Error(f"{rest} is wrong")]}.get(word, [Printed(line)])


def _player(tmp_path: Path, text: str) -> Player:
    script = tmp_path / "s.gwb"
    script.write_text(text)
    player = Player.open(script)
    player.agree(Consent())
    return player


def test_a_say_block_is_one_step_and_one_paragraph(tmp_path):
    player = _player(tmp_path, "say one\nsay  two\n# a comment\nsay three\nshow\nsay four\n")
    host = Host()
    steps = list(player.play(host, host.run))
    assert [[n for n, _ in s.lines] for s in steps] == [[1, 2, 4], [5], [6]]
    assert steps[0].narration == "one two three" and steps[2].narration == "four"
    assert steps[1].narration == ""


def test_a_pause_ends_a_step_and_a_face_that_waits_steps_on_from_it(tmp_path):
    player = _player(tmp_path, "a\npause\nb\n")
    host = Host()
    first, second = player.step(host, host.run), player.step(host, host.run)
    assert not first.paused and second.paused and player.next_line() == "b"
    assert not player.done and player.step(host, host.run).lines == ((3, "b"),)
    assert player.done and player.step(host, host.run) is None


@pytest.mark.parametrize("keep_going", [False, True])
def test_the_first_failing_line_stops_it_as_file_line_unless_keep_going(tmp_path, keep_going):
    player = _player(tmp_path, "a\nbad x\nc\nbad y\n")
    player.keep_going = keep_going
    host = Host()
    errors = [e for s in player.play(host, host.run) for e in s.errors]
    if keep_going:
        assert errors == ["s.gwb:2: x is wrong", "s.gwb:4: y is wrong"] and player.stopped is None
        assert [line for line, _ in host.ran] == ["a", "bad x", "c", "bad y"]
    else:
        assert errors == ["s.gwb:2: x is wrong"] and player.stopped == "s.gwb:2: x is wrong"
        assert [line for line, _ in host.ran] == ["a", "bad x"]


def test_quit_stops_the_script_there(tmp_path):
    player = _player(tmp_path, "a\nquit\nb\n")
    host = Host()
    assert [s.quit for s in player.play(host, host.run)] == [False, True]
    assert player.done and player.stopped is None


def test_nothing_runs_before_consent_and_lines_run_with_the_agreed_programs(tmp_path):
    (tmp_path / "p.py").write_text("")
    script = tmp_path / "s.gwb"
    script.write_text("#   programs: p.py\ntarget p.py\n")
    player = Player.open(script)
    assert "p.py" in player.question
    host = Host()
    with pytest.raises(ConsentRefused):
        player.step(host, host.run)   # not agreed yet
    with pytest.raises(ConsentRefused, match="you answered no"):
        player.agree(Consent(ask=lambda question: False))
    assert host.ran == []
    player.agree(Consent(ask=lambda question: True))
    player.step(host, host.run)
    assert host.ran == [("target p.py", frozenset({(tmp_path / "p.py").resolve()}))]


def test_gewb_run_and_source_report_the_same_failing_line(tmp_path):
    script = tmp_path / "s.gwb"
    script.write_text("say hello\nsay there\nhelp quit\nfrobnicate\nhelp\n")
    ran = replay(script)
    assert ran.errors == ["s.gwb:4: unknown command 'frobnicate' (help lists them)"]
    assert ran.lines[:2] == ["hello", "there"]
    session = DebugSession(base_dir=tmp_path)
    sourced = session.execute("source s.gwb")
    session.close()
    assert sourced[-1] == Error(ran.errors[0])
    assert [o.text for o in sourced if isinstance(o, Say)] == ["hello", "there"]
