"""The tabs' zygote: one process that imports the workbench once (textual, numpy, onnx, GE's
compiler) and forks a tab per browser, so that a tab starts in milliseconds instead of seconds
of imports on a CPU the class shares (30 tabs importing at once made the first screen take 20 s
and starved the keys of the tabs already open).

The server starts it with itself, in the environment every tab gets: the tabs' differ only in
what is read when the app starts (its size, its status file), never in what an import reads.
It runs with `python -P` in a folder of its own, so nothing of the server's folder is on its
path. Each request is a tab's arguments, environment, folder and limits, with the three pipe
ends that become the tab's stdin, stdout and stderr (passed over a Unix socket); the answer is
the tab's pid. The forked tab leads its own session and takes its caps (tab_process.py); the
zygote dies with the server, and a tab with the zygote.
"""
from __future__ import annotations

import asyncio
import atexit
import gc
import importlib
import json
import os
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path

from workbench.serve.tab_process import TabLimits, apply_limits, die_with_parent
from workbench.serve.tab_status import ENV as STATUS_ENV

# What a tab imports as it plays lesson 01 (python -X importtime), but the kernels' families
# (npu_emu.op_impl loads them at a first lookup, in 35 ms).
WARM = ("workbench.cli.tui", "workbench.tui.app", "workbench.model_inputs", "ge_core.session",
        "ge_core.parser", "textual.drivers.web_driver", "textual.layouts.factory",
        "textual.scrollbar", "concurrent.futures.thread", "numpy.random")
GEWB = "workbench.cli"   # what a tab runs: `gewb` with the tab's arguments
PER_TAB = ("COLUMNS", "ROWS", STATUS_ENV)   # read when a tab's app starts, never on an import
READY = b"ready"
MESSAGE_MAX = 1 << 20


@dataclass
class TabProcess:
    """A forked tab, as textual-serve's AppService reads a subprocess."""
    pid: int
    stdin: asyncio.StreamWriter
    stdout: asyncio.StreamReader
    stderr: asyncio.StreamReader

    @property
    def running(self) -> bool:
        """Whether the tab may still run (its output is still open; the zygote reaps it)."""
        return not self.stdout.at_eof()


class TabZygote:
    """The server's end: starts the zygote, asks it for tabs, ends it."""

    def __init__(self, environment: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.folder = Path(tempfile.mkdtemp(prefix="gewb-zygote-"))
        env = {k: v for k, v in environment.items() if k not in PER_TAB}
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "workbench.serve.tab_zygote", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), env=env, cwd=self.folder,
            stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        theirs.close()
        self._socket = ours
        self._ready = False
        self._lock = threading.Lock()   # one request at a time (the server asks from threads)

    async def start_tab(self, args: list[str], environment: dict[str, str], cwd: Path,
                        limits: TabLimits) -> TabProcess:
        loop = asyncio.get_running_loop()
        pid, stdin, stdout, stderr = await loop.run_in_executor(
            None, self._fork, args, environment, cwd, limits)
        readers = []
        for fd in (stdout, stderr):
            reader = asyncio.StreamReader(loop=loop)
            await loop.connect_read_pipe(lambda r=reader: asyncio.StreamReaderProtocol(r),
                                         os.fdopen(fd, "rb", 0))
            readers.append(reader)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(stdin, "wb", 0))
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return TabProcess(pid, writer, *readers)

    def _fork(self, args: list[str], environment: dict[str, str], cwd: Path,
              limits: TabLimits) -> tuple[int, int, int, int]:
        """Blocking: the tab's pid and the server's ends of its stdin, stdout and stderr."""
        request = json.dumps({"args": args, "env": environment, "cwd": str(cwd),
                              "memory_mb": limits.memory_mb, "cpu_s": limits.cpu_s}).encode()
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        try:
            with self._lock:
                if not self._ready:
                    self._ready = self._socket.recv(MESSAGE_MAX) == READY
                    if not self._ready:
                        raise OSError("the tabs' zygote did not start")
                socket.send_fds(self._socket, [request], [stdin_r, stdout_w, stderr_w])
                reply = self._socket.recv(MESSAGE_MAX)
        except OSError:
            for fd in (stdin_w, stdout_r, stderr_r):
                os.close(fd)
            raise
        finally:
            for fd in (stdin_r, stdout_w, stderr_w):
                os.close(fd)
        if not reply:
            raise OSError("the tabs' zygote is gone")
        return json.loads(reply)["pid"], stdin_w, stdout_r, stderr_r

    def close(self) -> None:
        self._socket.close()
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


# -- the zygote's end ------------------------------------------------------------------------------
def serve(channel: socket.socket) -> None:
    """Import once, then fork a tab per request until the server closes the socket."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the server's ^C is the server's to handle
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # ended tabs are reaped by the kernel
    for name in WARM:
        importlib.import_module(name)
    gc.freeze()   # what the imports made stays out of the tabs' collections: shared, not copied
    channel.send(READY)
    while True:
        message, fds, _, _ = socket.recv_fds(channel, MESSAGE_MAX, 3)
        if not message:
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            channel.close()
            _become_tab(json.loads(message), fds)   # never returns
        for fd in fds:
            os.close(fd)
        channel.send(json.dumps({"pid": pid}).encode())


def _become_tab(request: dict, fds: list[int]) -> None:
    """In the forked child: the tab's session, caps, streams, folder and environment, then
    `gewb` with its arguments, and the child's exit (never back into the zygote's loop)."""
    status = 0
    try:
        os.setsid()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        apply_limits(TabLimits(request["memory_mb"], request["cpu_s"]))
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["gewb", *request["args"]]
        runpy.run_module(GEWB, run_name="__main__")   # as `python -m workbench.cli` would
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except BaseException:   # noqa: BLE001 - a tab's failure is its own: said, and it exits
        traceback.print_exc()
        status = 1
    finally:
        try:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))
