"""GraphExecutor: the execution facade (GE's graph_executor.cc): stateless, every call forwarded
to the loaded model through the current world's ModelManager.

    execute_graph(model_id, inputs)                  NnExecute (or a hybrid model's Execute) on
                                                     the caller's thread, synchronous
    execute_graph_async(model_id, inputs, callback)  queued for the model's Run loop
    execute_graph_with_stream(model_id, stream, ...) NnExecute queued on the caller's stream
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ge_core.runtime.model_io import DeviceBuffer
from ge_core.runtime.v1.data_inputer import Callback, Inputs, Outputs
from ge_core.runtime.v1.model_manager import ModelManager

if TYPE_CHECKING:
    from npu_emu.core.stream import Stream


class GraphExecutor:
    @staticmethod
    def execute_graph(model_id: int, inputs: Inputs,
                      outputs: Sequence[DeviceBuffer] | None = None,
                      timeout_ms: int | None = None) -> Outputs | None:
        """One execution, on the caller's thread: a DavinciModel's NnExecute, or a
        HybridDavinciModel's Execute (ModelManager.execute_model)."""
        return ModelManager.get_instance().execute_model(model_id, inputs, outputs,
                                                         timeout_ms=timeout_ms)

    @staticmethod
    def execute_graph_async(model_id: int, inputs: Inputs, callback: Callback | None) -> int:
        """Queue one execution for the model's Run loop (started if need be); returns its data
        index. It runs when the loop is joined (ModelExecutor.wait, or the next sync call)."""
        model = ModelManager.get_instance().get_model(model_id)
        model.model_run_start()
        return model.data_inputer.push(inputs, callback)

    @staticmethod
    def execute_graph_with_stream(model_id: int, stream: Stream, inputs: Inputs,
                                  outputs: Sequence[DeviceBuffer] | None = None) -> None:
        ModelManager.get_instance().get_model(model_id).nn_execute(inputs, outputs, stream)
