"""The text rendering of outcomes that the REPL and transcripts share
(workbench/commands/render.py)."""
from workbench.commands.render import render, transcript_entry
from workbench.debugger.outcomes import (Error, Finished, Pause, ProgramOutput, Say, Stopped,
                                         StopReason, TableOutcome)


def test_rendering_is_stable_text():
    stop = Stopped(7, "SqeCompleted task=Add#3 time_ns=9", (StopReason("step", "step sqe"),
                                                           StopReason("watch", "watch 2: a -> b")),
                   "program > stream 1")
    assert render(stop) == ["stopped at tick 7: step sqe; watch 2: a -> b",
                            "  event: SqeCompleted task=Add#3 time_ns=9",
                            "  where: program > stream 1"]
    assert render(Finished(9, ("exit status 0",))) == ["finished at tick 9", "  exit status 0"]
    assert render(TableOutcome("t", ("a", "bb"), (("xyz", "1"),))) == [
        "t:", "  a    bb", "  xyz  1"]
    assert render(Error("bad")) == ["error: bad"]
    assert render(ProgramOutput("hi\nthere\n")) == ["| hi", "| there"]
    assert transcript_entry("say Hello", [Say("Hello")]) == ["Hello"]
    assert transcript_entry("pause", [Pause()]) == ["[pause]"]
    assert transcript_entry("where", []) == ["> where"]
