"""A fuzz target's cases run in a worker process, so a hang or runaway allocation costs one
case, not the run: the parent waits ``timeout`` seconds per case, then kills the worker and
starts a fresh one. The worker caps its address space, so runaway memory is a MemoryError it
reports rather than the machine swapping. The parent owns the worker's scratch directory and
removes it when it stops the worker, so a worker killed on a hang leaves nothing behind."""
from __future__ import annotations

import multiprocessing as mp
import os
import resource
import shutil
import tempfile
from multiprocessing.connection import Connection
from typing import Any

from fuzzing.verdict import HANG, UNCAUGHT, Verdict, quiet_stdio


def _serve(target_name: str, mem_bytes: int, workdir: str, conn: Connection) -> None:
    from fuzzing.targets import TARGETS
    resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    quiet_stdio()
    target = TARGETS[target_name]
    os.chdir(workdir)   # nothing a case writes can land outside the scratch directory
    context = target.setup(workdir)
    conn.send("ready")
    while True:
        case = conn.recv()
        if case is None:
            return
        try:
            verdict = target.run(case, context)
        except MemoryError:
            verdict = Verdict(HANG, "runaway memory in the harness")
        except Exception as exc:   # noqa: BLE001 - a harness bug, shown, not a dead worker
            verdict = Verdict(UNCAUGHT, f"harness: {type(exc).__name__}: {exc}")
        conn.send(verdict)


class Worker:
    def __init__(self, target_name: str, timeout: float, mem_bytes: int) -> None:
        self.target_name, self.timeout, self.mem_bytes = target_name, timeout, mem_bytes
        self._ctx = mp.get_context("spawn")   # no inherited threads or half-held locks
        self._proc: Any = None
        self._conn: Connection | None = None
        self._workdir: str | None = None

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._workdir = tempfile.mkdtemp(prefix=f"gewb-fuzz-{self.target_name}-")
        self._proc = self._ctx.Process(target=_serve, daemon=True,
                                       args=(self.target_name, self.mem_bytes, self._workdir,
                                             child))
        self._proc.start()
        self._conn = parent
        if not parent.poll(600) or parent.recv() != "ready":
            raise RuntimeError(f"fuzz worker for {self.target_name} did not start")

    def run(self, case: Any) -> Verdict:
        if self._proc is None or not self._proc.is_alive():
            self._start()
        assert self._conn is not None
        self._conn.send(case)
        if self._conn.poll(self.timeout):
            try:
                return self._conn.recv()
            except EOFError:
                pass
        else:
            self.stop()
            return Verdict(HANG, f"no answer in {self.timeout:g} s")
        self._proc.join(5)
        code = self._proc.exitcode
        self.stop()
        return Verdict(UNCAUGHT, f"worker died (exit code {code})")

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
            self._proc = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
