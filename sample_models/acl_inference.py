"""Offline inference with pyACL, as on a real Ascend board: load an OM, run it, read the output.

Everything between the two rulers is a host program written for a real device; the only change
is the import (``import acl`` there). The OM is what `gewb compile model.onnx -o model.om` (our
ATC) writes; without an argument this script compiles sample_models/tiny_cnn.onnx first, and at
the end checks the device's numbers against GE's host reference executor.

    python sample_models/acl_inference.py [MODEL.om]
    gewb devrun sample_models/acl_inference.py --trace inference.json
"""
import sys
import tempfile
from pathlib import Path

import numpy as np

from npu_emu import acl   # on a board: import acl

# pyACL defines no constants module; programs name the values they use.
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_SUCCESS = 0
NPY_FLOAT32 = 11
DEVICE_ID = 0
TINY_CNN = Path(__file__).resolve().parent / "tiny_cnn.onnx"


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{message} failed ret={ret}: {acl.get_recent_err_msg()}")


def device_buffers(count: int, size_of) -> list[tuple[int, int]]:
    """(device pointer, size) of one buffer per model input or output."""
    buffers = []
    for i in range(count):
        size = size_of(i)
        ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        buffers.append((ptr, size))
    return buffers


def make_dataset(buffers):
    dataset = acl.mdl.create_dataset()
    for ptr, size in buffers:
        data = acl.create_data_buffer(ptr, size)
        _, ret = acl.mdl.add_dataset_buffer(dataset, data)
        check_ret("acl.mdl.add_dataset_buffer", ret)
    return dataset


def destroy_dataset(dataset):
    for i in range(acl.mdl.get_dataset_num_buffers(dataset)):
        check_ret("acl.destroy_data_buffer",
                  acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(dataset, i)))
    check_ret("acl.mdl.destroy_dataset", acl.mdl.destroy_dataset(dataset))


def infer(model_path, image):
    """Run the OM at ``model_path`` on ``image``; returns its first output (a numpy array)."""
    # ---------------------------------------------------------------- real-board program --
    check_ret("acl.init", acl.init())
    check_ret("acl.rt.set_device", acl.rt.set_device(DEVICE_ID))
    context, ret = acl.rt.create_context(DEVICE_ID)
    check_ret("acl.rt.create_context", ret)
    stream, ret = acl.rt.create_stream()
    check_ret("acl.rt.create_stream", ret)

    model_id, ret = acl.mdl.load_from_file(str(model_path))
    check_ret("acl.mdl.load_from_file", ret)
    model_desc = acl.mdl.create_desc()
    check_ret("acl.mdl.get_desc", acl.mdl.get_desc(model_desc, model_id))

    inputs = device_buffers(acl.mdl.get_num_inputs(model_desc),
                            lambda i: acl.mdl.get_input_size_by_index(model_desc, i))
    outputs = device_buffers(acl.mdl.get_num_outputs(model_desc),
                             lambda i: acl.mdl.get_output_size_by_index(model_desc, i))

    image = np.ascontiguousarray(image, dtype=np.float32)
    image_ptr = acl.util.numpy_to_ptr(image)
    check_ret("acl.rt.memcpy", acl.rt.memcpy(inputs[0][0], inputs[0][1], image_ptr,
                                             image.nbytes, ACL_MEMCPY_HOST_TO_DEVICE))
    input_dataset, output_dataset = make_dataset(inputs), make_dataset(outputs)
    check_ret("acl.mdl.execute", acl.mdl.execute(model_id, input_dataset, output_dataset))

    out_ptr, out_size = outputs[0]
    dims, ret = acl.mdl.get_output_dims(model_desc, 0)
    check_ret("acl.mdl.get_output_dims", ret)
    host_ptr, ret = acl.rt.malloc_host(out_size)
    check_ret("acl.rt.malloc_host", ret)
    check_ret("acl.rt.memcpy", acl.rt.memcpy(host_ptr, out_size, out_ptr, out_size,
                                             ACL_MEMCPY_DEVICE_TO_HOST))
    result = acl.util.ptr_to_numpy(host_ptr, tuple(dims["dims"]), NPY_FLOAT32).copy()

    destroy_dataset(input_dataset)
    destroy_dataset(output_dataset)
    for ptr, _ in inputs + outputs:
        check_ret("acl.rt.free", acl.rt.free(ptr))
    check_ret("acl.rt.free_host", acl.rt.free_host(host_ptr))
    check_ret("acl.mdl.destroy_desc", acl.mdl.destroy_desc(model_desc))
    check_ret("acl.mdl.unload", acl.mdl.unload(model_id))
    check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(stream))
    check_ret("acl.rt.destroy_context", acl.rt.destroy_context(context))
    check_ret("acl.rt.reset_device", acl.rt.reset_device(DEVICE_ID))
    check_ret("acl.finalize", acl.finalize())
    # ------------------------------------------------------------------------------------------
    return result


def compile_tiny_cnn(out_dir):
    """What running ATC beforehand does: tiny_cnn.onnx -> an OM file."""
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.parser import parse_onnx
    om = Path(out_dir) / "tiny_cnn.om"
    atc(parse_onnx(TINY_CNN), CompileOptions(dump=None), BuildOptions(), out=om)
    return om


def host_reference(image):
    """The emulator's check: GE's host reference executor on the same input."""
    from ge_core.executor import HostExecutor
    from ge_core.parser import parse_onnx
    (expected,) = HostExecutor(parse_onnx(TINY_CNN)).run([image]).values()
    return expected


def main(argv):
    image = np.random.default_rng(0).random((1, 3, 16, 16), dtype=np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(argv[1]) if len(argv) > 1 else compile_tiny_cnn(tmp)
        result = infer(model, image)
    print(f"output {list(result.shape)}: top class {int(result.argmax())}, "
          f"probability {float(result.max()):.4f}")
    if len(argv) == 1:
        same = np.allclose(result, host_reference(image), rtol=1e-5, atol=1e-6)
        print(f"device == host reference: {same}")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
