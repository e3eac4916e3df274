"""DavinciModel::Run: a resident thread that executes a model for each item of its DataInputer
(GE's ModelRunStart / Run / ModelRunStop), reporting each to the item's callback, or else to
the model's listener (GE's ModelListener::OnComputeDone).

The emulated device advances only inside the calls of the thread that drives it, and a run must be
deterministic (docs/architecture.md), so the loop and its caller take turns rather than run at
once: ``push`` only queues; ``join`` hands the device to the loop until the queue is empty and
waits; ``stop`` joins and ends the thread, and so does the runtime's close if nobody stopped it
(``abandon``: a program that ended without its finalize, or one a debugger abandoned).
Callbacks run on the loop's thread, during a join. A
debugger that parks the loop's thread on a trace event sees the caller blocked in ``join``: still
one thread at a time. Whatever the loop's thread dies of (a callback raising, a debugger abandoning
the run) is raised again in the caller by ``join``. The thread runs in a copy of its starter's
context, so it works in the caller's World (npu_emu/world.py).
"""
from __future__ import annotations

import contextvars
import threading
from typing import TYPE_CHECKING

from ge_core.runtime.v1.data_inputer import DataInputer, InputData
from npu_emu.base.errors import ACL_ERROR_RT_END_OF_SEQUENCE, AclError

if TYPE_CHECKING:
    from ge_core.runtime.v1.davinci_model import DavinciModel

CALLER, LOOP = "caller", "loop"


class ModelRunLoop:
    def __init__(self, model: DavinciModel, data_inputer: DataInputer) -> None:
        self.model = model
        self.data_inputer = data_inputer
        self._cond = threading.Condition()
        self._turn = CALLER
        self._stopping = False
        self._abandoned = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=contextvars.copy_context().run, args=(self._run,),
                                        daemon=True, name=f"ge-model-{model.model_id}-run")
        self._thread.start()
        model.runtime.at_close(self.abandon)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self) -> None:
        """Let the loop execute everything queued; return when it has."""
        self._hand_over()

    def stop(self) -> None:
        """ModelRunStop: finish what is queued, then end the thread."""
        if not self._thread.is_alive():
            return
        self._stopping = True
        try:
            self._hand_over()
        finally:
            self._thread.join()

    def abandon(self) -> None:
        """The runtime closed with the loop still up (its program ended, or a debugger
        abandoned it, before ModelRunStop): the thread ends, and what is queued never runs. Left
        waiting, it would hold the run's world, a device's memory with it, to the process's end."""
        with self._cond:
            self._abandoned = self._stopping = True
            self._turn = LOOP
            self._cond.notify_all()

    def _hand_over(self) -> None:
        if not self._thread.is_alive():
            return
        with self._cond:
            self._turn = LOOP
            self._cond.notify_all()
            self._cond.wait_for(lambda: self._turn == CALLER)
        error, self._error = self._error, None
        if error is not None:
            raise error

    # -- the loop's thread ---------------------------------------------------------------------
    def _run(self) -> None:
        # A new thread has no current context: GE's DavinciModel::Run sets the model's device
        # first (ModelUtils::SetDevice, runtime/v1/graph/load/model_manager/davinci_model.cc).
        # It waits for its turn, as every call on the device does.
        first = True
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._turn == LOOP)
            if self._abandoned:
                return
            if first:
                self.model.runtime.set_device(self.model.device.id)
                first = False
            try:
                while (item := self.data_inputer.pop()) is not None:
                    self._execute(item)
            except BaseException as exc:   # handed to the caller, who re-raises it
                self._error = exc
                self._stopping = True
            with self._cond:
                self._turn = CALLER
                self._cond.notify_all()
            if self._stopping:
                return

    def _execute(self, item: InputData) -> None:
        """One round of GE's Run: inputs into the args table, execute, wait, outputs, report."""
        status, outputs = ACL_ERROR_RT_END_OF_SEQUENCE, {}
        if not item.end_of_sequence:
            try:
                outputs = self.model.nn_execute(item.inputs) or {}
                status = self.model.last_status
            except AclError as exc:
                status = exc.code
        callback = item.callback or self.model.listener
        if callback is not None:
            callback(status, outputs)
