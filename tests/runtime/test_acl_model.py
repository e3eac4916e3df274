"""The pyACL face of GE's loader: the sample program (written for a real board) runs on the
emulator and agrees with the host reference; the offline-model calls keep pyACL's return
conventions and error codes."""
import importlib.util

import numpy as np
import pytest

from ge_core.om import save_om
from npu_emu import acl
from npu_emu.acl import model_loader
from npu_emu.base.errors import (ACL_ERROR_INVALID_MODEL_ID, ACL_ERROR_MODEL_INPUT_NOT_MATCH,
                            ACL_ERROR_READ_MODEL_FAILURE, ACL_ERROR_RT_DEVICE_MEM_ERROR,
                            ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_MODEL_ABORT_NORMAL)
from npu_emu.world import World
from v1_testing import ROOT, TINY, ge_model, host_outputs

SAMPLE = ROOT / "sample_models" / "acl_inference.py"


def _sample():
    spec = importlib.util.spec_from_file_location("acl_inference", SAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def om_file(tmp_path):
    path = tmp_path / "tiny_cnn.om"
    save_om(ge_model(), path)
    return path


def test_the_pyacl_sample_runs_and_matches_the_host(om_file):
    image = np.random.default_rng(3).random((1, 3, 16, 16), dtype=np.float32)
    with World().entered():
        result = _sample().infer(om_file, image)
    np.testing.assert_allclose(result, host_outputs(TINY, {"input": image})["prob"], rtol=1e-5,
                               atol=1e-6)


def test_the_sample_compiles_tiny_cnn_itself_without_an_argument(capsys):
    with World().entered():
        assert _sample().main([str(SAMPLE)]) == 0
    assert "device == host reference: True" in capsys.readouterr().out


@pytest.fixture
def acl_device():
    with World().entered():
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        yield
        assert acl.finalize() == 0


def test_desc_calls_describe_the_loaded_model(om_file, acl_device):
    model_id, ret = acl.mdl.load_from_file(str(om_file))
    assert (model_id, ret) == (1, 0)
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == 0
    assert (acl.mdl.get_num_inputs(desc), acl.mdl.get_num_outputs(desc)) == (1, 1)
    assert acl.mdl.get_input_size_by_index(desc, 0) == 3 * 16 * 16 * 4
    assert acl.mdl.get_output_size_by_index(desc, 0) == 10 * 4
    assert acl.mdl.get_input_dims(desc, 0) == ({"name": "input", "dimCount": 4,
                                                "dims": [1, 3, 16, 16]}, 0)
    assert acl.mdl.get_output_name_by_index(desc, 0) == "prob"
    assert acl.mdl.get_input_data_type(desc, 0) == 0    # ACL_FLOAT
    assert acl.mdl.get_input_index_by_name(desc, "input") == (0, 0)
    assert acl.mdl.destroy_desc(desc) == 0
    assert acl.mdl.unload(model_id) == 0


def test_load_from_mem_and_execute_async_on_a_stream(om_file, acl_device):
    data = om_file.read_bytes()
    model_id, ret = acl.mdl.load_from_mem(acl.util.bytes_to_ptr(data), len(data))
    assert ret == 0
    stream, _ = acl.rt.create_stream()
    image = np.random.default_rng(0).random((1, 3, 16, 16), dtype=np.float32)
    x, _ = acl.rt.malloc(image.nbytes, 0)
    y, _ = acl.rt.malloc(40, 0)
    acl.rt.memcpy(x, image.nbytes, acl.util.numpy_to_ptr(image), image.nbytes, 1)
    inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    assert acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(x, image.nbytes)) == \
        (inputs, 0)
    acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(y, 40))
    assert acl.mdl.get_dataset_num_buffers(inputs) == 1
    assert acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(inputs, 0)) == x
    assert acl.mdl.execute_async(model_id, inputs, outputs, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    result = np.zeros((1, 10), np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(result), 40, y, 40, 2)
    np.testing.assert_allclose(result, host_outputs(TINY, {"input": image})["prob"], rtol=1e-5,
                               atol=1e-6)


def test_unloading_a_model_whose_async_execution_is_queued_stops_it(om_file, acl_device):
    """aclmdlUnload before the stream is synchronized: the unbinding lets the TS start the
    queued execution; unloading stops it (its waiter ends aborted) rather than leaving its
    tasks in flight on streams that are gone (the scheduler met an IndexError)."""
    model_id, _ = acl.mdl.load_from_file(str(om_file))
    stream, _ = acl.rt.create_stream()
    x, _ = acl.rt.malloc(3 * 16 * 16 * 4, 0)
    y, _ = acl.rt.malloc(40, 0)
    inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(x, 3 * 16 * 16 * 4))
    acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(y, 40))
    assert acl.mdl.execute_async(model_id, inputs, outputs, stream) == 0
    assert acl.mdl.unload(model_id) == 0
    assert acl.rt.synchronize_stream(stream) == ACL_ERROR_RT_MODEL_ABORT_NORMAL
    assert acl.rt.synchronize_device() == 0 and acl.rt.synchronize_stream(stream) == 0


def test_errors_come_back_as_acl_codes(tmp_path, acl_device):
    bad = tmp_path / "bad.om"
    bad.write_bytes(b"not an om" * 40)
    assert acl.mdl.load_from_file(str(bad)) == (None, ACL_ERROR_READ_MODEL_FAILURE)
    assert "wrong magic" in acl.get_recent_err_msg()
    assert acl.mdl.load_from_file(str(tmp_path / "none.om"))[1] == ACL_ERROR_READ_MODEL_FAILURE
    assert acl.mdl.unload(9) == ACL_ERROR_INVALID_MODEL_ID
    save_om(ge_model(), tmp_path / "ok.om")
    model_id, _ = acl.mdl.load_from_file(str(tmp_path / "ok.om"))
    small, _ = acl.rt.malloc(16, 0)
    inputs = acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(small, 16))
    assert acl.mdl.execute(model_id, inputs, acl.mdl.create_dataset()) == \
        ACL_ERROR_MODEL_INPUT_NOT_MATCH


def test_the_loader_is_found_through_the_registration_hook():
    assert type(model_loader.model_loader()).__name__ == "AclModelLoader"


def test_importing_ge_runtime_registers_nothing():
    import subprocess
    import sys
    code = ("import ge_core.runtime.acl_model_loader\nfrom npu_emu.acl import model_loader\n"
            "print(model_loader._loader)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_acl_mdl_imports_ge_runtime_on_first_use_like_a_dlopen():
    import subprocess
    import sys
    code = ("import sys\nfrom npu_emu import acl\nassert 'ge_core.runtime' not in sys.modules\n"
            "acl.init(); acl.rt.set_device(0)\n"
            "print(acl.mdl.load_from_file('missing.om')[1], 'ge_core.runtime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.split() == [str(ACL_ERROR_READ_MODEL_FAILURE), "True"]


def _dataset(*buffers):
    dataset = acl.mdl.create_dataset()
    for ptr, size in buffers:
        acl.mdl.add_dataset_buffer(dataset, acl.create_data_buffer(ptr, size))
    return dataset


def test_execute_fails_on_a_freed_or_undersized_buffer_as_memcpy_does(om_file, acl_device):
    """aclmdlExecute must not read freed memory or past an allocation and report success: each
    buffer gets the check a memcpy from it gets (507053), and the device stays usable."""
    model_id, _ = acl.mdl.load_from_file(str(om_file))
    x, _ = acl.rt.malloc(3072, 0)
    y, _ = acl.rt.malloc(40, 0)
    small, _ = acl.rt.malloc(16, 0)
    freed, _ = acl.rt.malloc(3072, 0)
    assert acl.rt.free(freed) == 0
    host, _ = acl.rt.malloc_host(3072)
    assert acl.rt.memcpy(host, 3072, freed, 3072, 2) == ACL_ERROR_RT_DEVICE_MEM_ERROR
    assert acl.mdl.execute(model_id, _dataset((freed, 3072)), _dataset((y, 40))) == \
        ACL_ERROR_RT_DEVICE_MEM_ERROR
    assert acl.mdl.execute(model_id, _dataset((small, 3072)), _dataset((y, 40))) == \
        ACL_ERROR_RT_DEVICE_MEM_ERROR                    # a buffer that claims more than it has
    assert acl.mdl.execute(model_id, _dataset((x, 3072)), _dataset((freed, 40))) == \
        ACL_ERROR_RT_DEVICE_MEM_ERROR
    stream, _ = acl.rt.create_stream()
    assert acl.mdl.execute_async(model_id, _dataset((freed, 3072)), _dataset((y, 40)),
                                 stream) == ACL_ERROR_RT_DEVICE_MEM_ERROR
    inputs = _dataset((x, 3072))
    assert acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(inputs, 0)) == 0
    assert acl.mdl.execute(model_id, inputs, _dataset((y, 40))) == ACL_ERROR_RT_INVALID_HANDLE
    image = np.random.default_rng(1).random((1, 3, 16, 16), dtype=np.float32)
    acl.rt.memcpy(x, 3072, acl.util.numpy_to_ptr(image), 3072, 1)
    assert acl.mdl.execute(model_id, _dataset((x, 3072)), _dataset((y, 40))) == 0
    result = np.zeros((1, 10), np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(result), 40, y, 40, 2)
    np.testing.assert_allclose(result, host_outputs(TINY, {"input": image})["prob"], rtol=1e-5,
                               atol=1e-6)
