"""`gewb exec` misused (issue 15): an input of the wrong shape is refused in every mode even when
its bytes fit; the suite's dynamic-shape models run on their own data; a plan larger than the
device, or a host with too little address space, fails in one line before the host allocates;
unreadable input files are one line."""
from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_cases import one_op, save
from v1_testing import TINY
from workbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
SIMPLE = Path(onnx.__file__).parent / "backend" / "test" / "data" / "simple"


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    return err


@pytest.mark.parametrize("mode", ["auto", "sink", "v2", "hybrid"])
@pytest.mark.parametrize("shape", [(768,), (1, 16, 16, 3)])
def test_an_input_of_the_wrong_shape_is_refused_though_its_bytes_fit(mode, shape, tmp_path,
                                                                      capsys):
    np.save(tmp_path / "x.npy", np.ones(shape, np.float32))   # 3072 bytes, as [1,3,16,16]
    assert main(["exec", TINY, "--mode", mode, "--input", f"input={tmp_path / 'x.npy'}"]) == 2
    assert f"input input: shape {list(shape)}, the model takes [1, 3, 16, 16]" in \
        _one_line(capsys)


@pytest.mark.parametrize("mode", ["auto", "hybrid"])
@pytest.mark.parametrize("case", [f"test_expand_shape_model{i}" for i in (1, 2, 3, 4)])
def test_the_expand_shape_models_run_on_their_own_data(case, mode, tmp_path, capsys):
    """Their shapes come from an input, so GE runs them hybrid; with the suite's .pb inputs
    the outputs are the suite's."""
    data = SIMPLE / case / "test_data_set_0"
    out = tmp_path / "out.npz"
    assert main(["exec", str(SIMPLE / case / "model.onnx"), "--mode", mode, "--output", str(out),
                 "--input", f"X={data / 'input_0.pb'}",
                 "--input", f"shape={data / 'input_1.pb'}"]) == 0
    expected = numpy_helper.to_array(onnx.load_tensor(str(data / "output_0.pb")))
    np.testing.assert_array_equal(np.load(out)["Y"], expected)


def test_a_failed_hybrid_execution_is_its_own_error(capsys):
    """The random shape operand [0, 0] cannot be broadcast to: said as such, not as the
    allocator blocks the failed execution left behind."""
    model = SIMPLE / "test_expand_shape_model1" / "model.onnx"
    assert main(["exec", str(model), "--mode", "hybrid"]) == 2
    err = _one_line(capsys)
    assert "cannot broadcast [1,3,1] and [0,0]" in err and "allocator" not in err


@pytest.mark.parametrize("mode", ["hybrid", "v2"])
def test_a_switch_merge_model_run_unsunk_says_to_run_it_sunk(mode, capsys):
    """Its Switch/Merge pair compiles to a StreamSwitch, which only the sunk model runs here:
    the lowering listed every converter it has instead."""
    assert main(["exec", str(ROOT / "sample_models" / "switch_merge.onnx"), "--mode", mode]) == 2
    assert _one_line(capsys).endswith(
        "node c/StreamSwitch_f (StreamSwitch): the hybrid and v2 runtimes here run no "
        "StreamSwitch, which the compile makes of a Switch/Merge pair (GE's hybrid executor "
        "runs it on the host); run the model sunk (--mode sink)\n")


@pytest.mark.parametrize("mode", ["auto", "hybrid"])
def test_a_model_with_a_string_input_runs_on_random_strings(mode, capsys):
    """Its inputs are named from their descs, which have no numpy number type (v2 needs a
    static build, which a string refuses)."""
    model = SIMPLE / "test_strnorm_model_monday_casesensintive_upper" / "model.onnx"
    assert main(["exec", str(model), "--mode", mode]) == 0
    assert "  y: str[" in capsys.readouterr().out


def _run_capped(address_space: int, *argv: str) -> subprocess.CompletedProcess:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, preexec_fn=cap)


def test_a_plan_larger_than_the_device_fails_before_the_host_allocates(tmp_path):
    """An Add of 1e9 floats once took 11.8 GB of host memory to find the device too small;
    under a 4 GiB address space it is refused by the plan check (x, z, y: 12 GB)."""
    big = [10**9]
    model = save(one_op("Add", [("x", TensorProto.FLOAT, big), ("z", TensorProto.FLOAT, big)],
                        ["y"]), tmp_path, "add")
    done = _run_capped(4 << 30, "exec", model)
    assert done.returncode == 2 and done.stdout == ""
    assert "needs 12,000,000,512 bytes of device memory (feature map 12,000,000,512 B); " \
           "device 0 has 2,147,483,648 free" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_host_without_room_for_the_device_is_one_line():
    """ulimit -v 2000000: the emulated device's 2 GiB cannot be reserved."""
    done = _run_capped(2_000_000 * 1024, "exec", TINY)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "cannot reserve 2147483648 bytes for device 0's memory on the host" in done.stderr


def _npy_header_claiming(n: int) -> bytes:
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({n},), }}"
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()


@pytest.mark.parametrize("content, reason", [
    (_npy_header_claiming(1 << 40), "its header promises float32[1099511627776] "
                                    "(4398046511104 bytes), the file holds 0"),
    (b"not a numpy file", "not a .npy file"),
    (None, "holds Python objects, not numbers"),
])
def test_a_bad_input_file_is_one_line(content, reason, tmp_path, capsys):
    path = tmp_path / "x.npy"
    if content is None:
        np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    else:
        path.write_bytes(content)
    assert main(["exec", TINY, "--input", f"input={path}"]) == 2
    assert reason in _one_line(capsys)


def test_a_bad_pb_input_is_one_line(tmp_path, capsys):
    path = tmp_path / "x.pb"
    path.write_bytes(b"\xff" * 16)
    assert main(["exec", TINY, "--input", f"input={path}"]) == 2
    assert "not an ONNX TensorProto" in _one_line(capsys)



# the commands that run a model on the host, hybrid and sunk
RUNS = [["graph", "--run"], ["exec", "--mode", "hybrid"], ["exec", "--mode", "sink"]]


def _run_quietly(command: list[str], path: str) -> str:
    """``gewb COMMAND path ...`` in a process of its own (the CLI sets its warning filters
    there): it succeeds with nothing on stderr; its stdout."""
    done = subprocess.run([sys.executable, "-m", "workbench.cli", command[0], path,
                           *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout


@pytest.mark.parametrize("command", RUNS)
def test_a_result_that_overflows_is_inf_without_a_python_warning(command, tmp_path):
    """3e38 * 3e38 is inf on a device, as in IEEE: numpy's RuntimeWarning (with its source
    line) is not for the user's screen."""
    big = numpy_helper.from_array(np.full((4,), 3e38, np.float32), "big")
    f4 = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("x", "y")]
    graph = helper.make_graph([helper.make_node("Add", ["x", "big"], ["t"]),   # ~3e38
                               helper.make_node("Mul", ["t", "big"], ["y"])],  # inf
                              "overflow", f4[:1], f4[1:], [big])
    path = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
                tmp_path, "overflow")
    assert "y: f32[4] min inf max inf" in _run_quietly(command, path)


@pytest.mark.parametrize("command", RUNS)
def test_a_model_with_an_empty_input_runs_on_an_empty_input_to_nan_without_a_warning(
        command, tmp_path):
    """A 0 dim is a dim: the random input a run makes has it (it was made 1, which the run
    then refused as not the model's shape), and the mean of no values is nan, without
    numpy's "Mean of empty slice" and its source line on the user's screen."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 0, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("GlobalAveragePool", ["x"], ["y"])], "empty",
                              [x], [y])
    path = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
                tmp_path, "empty")
    assert "y: f32[1,2,1,1] min nan max nan" in _run_quietly(command, path)
