"""`gewb devrun` on the sample host programs: summaries, faults, exit codes, the timeline."""
import json
from pathlib import Path

import pytest

from workbench.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_models" / "devrun"


def devrun(capsys, name, *flags):
    status = main(["devrun", str(SAMPLES / name), *flags])
    out = capsys.readouterr().out
    assert "Traceback" not in out
    return status, out


def faults(out):
    return [line for line in out.splitlines() if line.startswith("fault: ")]


def test_producer_consumer_is_clean_with_the_race_check(capsys):
    status, out = devrun(capsys, "producer_consumer.py", "--race-check")
    assert status == 0 and faults(out) == []
    assert "z == 2 * relu(x): True" in out and "devrun: 5 SQEs retired on 2 streams" in out


def test_missing_wait_is_a_race_naming_both_tasks(capsys):
    status, out = devrun(capsys, "missing_wait.py", "--race-check")
    (line,) = faults(out)
    assert status == 1 and line.startswith("fault: missing_wait.py:")
    assert ("race: Add (task 2, SQE 0 of consumer (stream rt2)) and Relu (task 1, SQE 1 of "
            "producer (stream rt1))") in line


def test_synchronizing_a_capturing_stream_is_refused_and_the_capture_goes_on(capsys):
    """capture_sync.py: aclrtSynchronizeStream on the capturing stream returns 107027 with the
    runtime's message; the capture still ends into a model whose execution computes y."""
    status, out = devrun(capsys, "capture_sync.py")
    assert status == 1 and faults(out) == []          # 1: an API call failed, no fault
    assert "warning: capture_sync.py:30: acl.rt.synchronize_stream returned " \
           "ACL_ERROR_RT_STREAM_CAPTURED (107027)" in out
    assert "synchronize_stream(s) while capturing returned 107027" in out
    assert "stream (stream_id=1) during the capture stage is not supported" in out
    assert "capture_end returned 0" in out and "y == relu(x): True" in out


def test_two_devices_each_driven_by_a_thread_with_its_own_context(capsys):
    status, out = devrun(capsys, "devices_and_contexts.py")
    assert status == 1 and faults(out) == []          # 1: the two refused create_streams
    for device in (0, 1):
        assert (f"thread {device}: {{'create_stream before a context': 107002, 'device': "
                f"{device}, 'its own context current': True, 'y == x * x': True}}") in out
    assert "main thread: still device 0 and its own context: True" in out


def test_deadlock_is_reported_once_with_the_wait_for_chain(capsys):
    status, out = devrun(capsys, "deadlock.py")
    (line,) = faults(out)
    assert status == 1 and "deadlock.py:" in line and "which is never recorded" in line
    assert "returned 507046" in out


def test_label_loop_runs_and_writes_a_perfetto_timeline(capsys, tmp_path):
    trace = tmp_path / "loop.json"
    status, out = devrun(capsys, "label_loop.py", "--race-check", "--trace", str(trace))
    assert status == 0 and "acc == 5 * x: True" in out and faults(out) == []
    events = json.loads(trace.read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) > 50 and any(e["ph"] == "f" for e in events)


def test_autosplit_runs_on_a_950_and_a_910b_fills_the_sq(capsys):
    status, out = devrun(capsys, "autosplit.py", "--soc-version", "Ascend950DT_9571")
    assert status == 0 and "Ascend950DT_9571 (AutoSplit): acc == 18 * x: True" in out
    # the default chip, a 910B: the full SQ is a failed call, reported, and the status says so
    status, out = devrun(capsys, "autosplit.py")
    assert status == 1 and "Ascend910B1 (no AutoSplit): the launch returns 507002" in out
    assert "returned ACL_ERROR_RT_STREAM_TASK_FULL (507002)" in out


def test_a_chip_that_is_not_modelled_is_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["devrun", str(SAMPLES / "autosplit.py"), "--soc-version", "Ascend310P3"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == ("gewb devrun: error: argument --soc-version: 'Ascend310P3': not a modelled "
                   "chip; the chips are Ascend910B*, Ascend950*")


def test_capture_executes_100_times_race_free(capsys):
    status, out = devrun(capsys, "capture.py", "--race-check")
    assert status == 0 and faults(out) == []
    assert "100 correct" in out and "after the task update z == 2 * relu(x): True" in out


def test_timeout_aborts_the_model_and_is_a_fault(capsys):
    status, out = devrun(capsys, "timeout.py")
    (line,) = faults(out)
    assert status == 1 and "timed out after 5 ms" in line and "aborted model" in line
    assert "synchronize again: 507023" in out and "the device still works: True" in out


@pytest.mark.parametrize("body, expected", [
    ("x = 1 / 0\n", "error: bad.py:1: ZeroDivisionError: division by zero"),
    ("import npu_emu.acl as acl\nfrom npu_emu.world import current_runtime\n"
     "current_runtime().set_device(0)\ncurrent_runtime().malloc(-1)\n",
     "error: bad.py:4: InvalidParamError: malloc of -1 bytes"),
])
def test_a_program_error_is_its_own_traceback_and_one_line_with_file_and_line(
        capsys, tmp_path, body, expected):
    script = tmp_path / "bad.py"
    script.write_text(body)
    assert main(["devrun", str(script)]) == 1
    out = capsys.readouterr().out
    assert expected in out
    frames = [line for line in out.splitlines() if line.startswith("  File ")]
    assert frames and all(line.startswith('  File "bad.py"') for line in frames)


def test_a_missing_script_is_a_user_error(capsys):
    assert main(["devrun", "no/such/script.py"]) == 2
    assert "no such script" in capsys.readouterr().err


BLOCKED_FOREVER = """import npu_emu.acl as acl
acl.init()
acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
never, _ = acl.rt.create_event()
buf, _ = acl.rt.malloc(1024, 0)
acl.rt.stream_wait_event(stream, never)
acl.rt.launch_kernel("Relu", [(buf, (256,), "float32")], [(buf, (256,), "float32")], None,
                     stream)
"""


@pytest.mark.parametrize("ending, where, printed", [
    ("", "the program ended, and its streams can never finish", ""),
    ("print('finalize', acl.finalize())\n", "bad.py:11: deadlock: reset device 0 can never "
     "finish", "finalize 507046"),
    ("print('reset', acl.rt.reset_device(0))\n", "bad.py:11: deadlock: reset device 0",
     "reset 507046")])
def test_a_stream_left_waiting_forever_is_a_fault_at_the_end(capsys, tmp_path, ending, where,
                                                              printed):
    """No synchronize ever notices the wait nobody satisfies: the end of the program (or the
    finalize / reset that ends it) reports the stream and what it waits on."""
    script = tmp_path / "bad.py"
    script.write_text(BLOCKED_FOREVER + "\n" + ending)
    assert main(["devrun", str(script)]) == 1
    out = capsys.readouterr().out
    (line,) = faults(out)
    assert where in line and printed in out
    assert "stream (stream rt1) waits at StreamWaitEvent(e0)" in line   # by its variable
    assert "for never (event 0), which is never recorded" in line


def test_a_script_written_for_a_real_board_runs_with_its_own_import_acl(capsys, tmp_path):
    """pyACL scripts say `import acl`: they ran only once edited to import npu_emu.acl. The
    alias lives while the program runs; a bad handle's message reads as English."""
    import sys
    script = tmp_path / "board.py"
    script.write_text("import acl\nfrom acl import rt\nacl.init()\nacl.rt.set_device(0)\n"
                      "s, ret = rt.create_stream()\n"
                      "print('record into a non-event:', acl.rt.record_event(12345, s))\n"
                      "acl.rt.synchronize_stream(s)\nacl.rt.reset_device(0)\nacl.finalize()\n")
    status = main(["devrun", str(script)])
    captured = capsys.readouterr()
    # ran to its end (a failed call makes the status 1, as devrun's warning says)
    assert status == 1 and "record into a non-event: 107017" in captured.out, captured
    assert "warning: 1 API call failed, the first at board.py:6" in captured.out
    assert "12345 is not an Event handle" in captured.out + captured.err
    assert "acl" not in sys.modules and "acl.rt" not in sys.modules


@pytest.mark.parametrize("ending", ["raise SystemError('boom')", "import os; os._exit(3)", ""])
def test_the_acl_alias_serves_every_submodule_and_goes_however_the_program_ends(
        capsys, tmp_path, ending):
    """`import acl.constants` loaded a second copy under the alias, left it in sys.modules and
    put it in place of npu_emu.acl.constants."""
    import sys
    import npu_emu.acl.constants as constants
    script = tmp_path / "p.py"
    script.write_text("import acl.constants\nimport npu_emu.acl.constants as ours\n"
                      "print('one module:', acl.constants is ours)\n" + ending + "\n")
    main(["devrun", str(script)])
    assert "one module: True" in capsys.readouterr().out
    assert not [m for m in sys.modules if m == "acl" or m.startswith("acl.")]
    import npu_emu.acl
    assert npu_emu.acl.constants is constants


def test_an_acl_the_process_has_already_is_the_program_s(capsys, tmp_path, monkeypatch):
    import sys
    import types
    theirs = types.ModuleType("acl")
    monkeypatch.setitem(sys.modules, "acl", theirs)
    script = tmp_path / "p.py"
    script.write_text("import acl, sys\nprint('theirs:', not hasattr(acl, 'rt'), "
                      "'acl.rt' not in sys.modules)\n")
    main(["devrun", str(script)])
    assert "theirs: True True" in capsys.readouterr().out
    assert sys.modules["acl"] is theirs
