"""The host-program bug classes of tests/data/host_bugs, one program each, and what every face
must say about each: the lines its report contains after `handle all nostop` and `continue`
(the REPL, a `.gwb` script and the app check the same lines), and the program line the
source pane marks."""
from pathlib import Path

BUGS = Path(__file__).resolve().parent / "data" / "host_bugs"

# program -> (lines the report contains, the line the source pane marks or None)
EXPECTED = {
    "unpacked_handle.py": (
        ["warning: unpacked_handle.py:11: acl.rt.launch_kernel returned "
         "ACL_ERROR_INVALID_PARAM (100000): acl.rt.launch_kernel: stream=(1342177280, 0) is not "
         "a stream handle",
         "warning: 2 API calls failed, the first at unpacked_handle.py:11",
         "exit status 0"], 11),
    "wrong_stream.py": (
        ["hint: stream rt0 and producer (stream rt1) wrote device memory with nothing "
         "ordering them", "exit status 0"], None),
    "freed_buffer.py": (
        ["fault: freed_buffer.py:12: task: Relu (task 0, SQE 0 of stream (stream rt1)) "
         "failed: access at 0x100000200: block 0x100000200 was freed",
         "warning: 1 API call failed, the first at freed_buffer.py:12"], 12),
    "forgotten_record.py": (
        ["fault: forgotten_record.py:16: deadlock: synchronize consumer (stream rt2) can never "
         "finish: consumer (stream rt2) waits at StreamWaitEvent(e0) (task 1, SQE 0 of "
         "consumer (stream rt2)) for y_ready (event 0), which is never recorded"], 16),
    "raise_in_helper.py": (
        ["Traceback (most recent call last):",
         '  File "raise_in_helper.py", line 14, in <module>', "    print(scale(data, 0))",
         '  File "raise_in_helper.py", line 7, in scale',
         '    raise ValueError("factor must not be 0")', "ValueError: factor must not be 0",
         "error: raise_in_helper.py:7: ValueError: factor must not be 0", "exit status 1"], 7),
    "exit_3.py": (["giving up", "exit status 3"], None),
}
