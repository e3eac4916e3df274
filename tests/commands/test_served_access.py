"""A served tab's session (issue 23): it opens only the served lesson's files and the bundled
samples, runs only the programs the teacher agreed to, lists no other folder, and every file it
saves is delivered (to the student's browser) instead of written on the server. All decided by
one policy, workbench/script/access.py; the browser side is tests/tui/test_serve.py."""
import io
import zipfile

import pytest

from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error
from workbench.script.access import Access
from workbench.script.lesson import LESSONS_DIR

SAMPLES = LESSONS_DIR.parent
LESSON = LESSONS_DIR / "01_ir_nodes_and_anchors.gwb"
PROGRAM = SAMPLES / "acl_inference.py"


@pytest.fixture
def tab(tmp_path):
    delivered: list[tuple[str, bytes]] = []
    access = Access.served_tab(LESSON, frozenset())
    session = DebugSession(tmp_path, access=Access(access.roots, access.programs,
                                              lambda name, data: delivered.append((name, data))))
    yield session, delivered
    session.close()


def _error(outcomes) -> str:
    errors = [o.message for o in outcomes if isinstance(o, Error)]
    return errors[0] if errors else ""


def test_a_served_tab_reads_only_the_lesson_and_the_bundled_samples(tab, tmp_path):
    session, _ = tab
    outside = tmp_path / "secret.gwb"
    outside.write_text("say the teacher's secret\n")
    assert "a served tab opens only" in _error(session.execute(f"source {outside}"))
    model = tmp_path / "m.onnx"
    model.write_bytes((SAMPLES / "tiny_cnn.onnx").read_bytes())
    assert "a served tab opens only" in _error(session.execute(f"target {model}"))
    assert "a served tab opens only" in _error(session.execute(f"set input x={tmp_path}/a.npy"))
    assert session.commands.lookup("source").complete(session, [], str(tmp_path) + "/") == []
    assert _error(session.execute(f"target {SAMPLES / 'tiny_cnn.onnx'}")) == ""


def test_a_served_tab_runs_only_the_programs_the_teacher_agreed_to(tab, tmp_path):
    session, _ = tab
    assert "runs only the host programs" in _error(session.execute(f"target {PROGRAM}"))
    agreed = Access.served_tab(LESSON, frozenset({PROGRAM.resolve()}))
    allowed = DebugSession(tmp_path, access=agreed)
    assert _error(allowed.execute(f"target {PROGRAM}")) == ""
    allowed.close()


def test_a_served_tab_delivers_what_it_saves(tab, tmp_path):
    session, delivered = tab
    session.execute(f"target {SAMPLES / 'tiny_cnn.onnx'}")
    session.execute("step stage")
    for line in (f"save-script {tmp_path / 'a.gwb'}", f"dump {tmp_path / 'd'}",
                 f"export trace {tmp_path / 't.json'}"):
        assert _error(session.execute(line)) == "", line
    assert list(tmp_path.iterdir()) == []   # nothing on the server
    (script, saved), (dump, zipped), (trace, _) = delivered
    assert (script, dump, trace) == ("a.gwb", "d.zip", "t.json")
    assert saved.decode().startswith("# GE Workbench session")
    assert any(n.endswith(".dot") for n in zipfile.ZipFile(io.BytesIO(zipped)).namelist())


def test_the_policy_crosses_to_the_tab_process_whole():
    access = Access.served_tab(LESSON, frozenset({PROGRAM}))
    assert Access.from_json(access.to_json()) == access


def test_a_served_tab_cannot_probe_which_server_paths_exist(tab, tmp_path):
    """The refusal comes before the look: a missing and an existing file outside the sandbox
    answer alike (a "no such target" would tell the student the path is free)."""
    session, _ = tab
    there = tmp_path / "there.onnx"
    there.write_bytes(b"x")
    answers = [_error(session.execute(f"target {p}")).replace(str(p), "PATH")
               for p in (there, tmp_path / "missing.onnx")]
    assert answers[0] == answers[1] and "a served tab opens only" in answers[0]
