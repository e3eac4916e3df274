"""GraphLoader: the loading facade (GE's graph_loader.cc): static methods that forward to the
current world's ModelManager, so callers (the Session, the ACL model calls) need not know it.

    load_model_online(model)         what the compiler just made: a built GeModel, or a compiled
                                     graph with unknown dims (GeRootModel in GE)
    load_model_from_data(om_bytes)   an offline model: an OM file's bytes (ModelData)
    load_model_with_q(ge_model, ...) a model fed from an input queue, results to an output queue
"""
from __future__ import annotations

import os
from collections import deque

from ge_core.om import OmFileError, load_om_bytes
from ge_core.om.ge_model import GeModel
from ge_core.runtime.errors import ModelLoadError
from ge_core.runtime.v1.data_inputer import DataInputer, Outputs
from ge_core.runtime.v1.model_manager import ModelManager, RootModel


class GraphLoader:
    @staticmethod
    def load_model_online(model: RootModel, session_id: int = 0,
                          feature_map_base: int | None = None,
                          weights_base: int | None = None,
                          fixed_feature_map_base: int | None = None) -> int:
        return ModelManager.get_instance().load_model(model, session_id, feature_map_base,
                                                      weights_base, fixed_feature_map_base)

    @staticmethod
    def load_model_from_data(data: bytes, source: str = "<model data>",
                             session_id: int = 0) -> int:
        try:
            ge_model = load_om_bytes(data, source)
        except OmFileError as exc:
            raise ModelLoadError(str(exc)) from exc
        return GraphLoader.load_model_online(ge_model, session_id)

    @staticmethod
    def load_model_from_file(path: str | os.PathLike, session_id: int = 0) -> int:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise ModelLoadError(f"{path}: {exc.strerror}") from exc
        return GraphLoader.load_model_from_data(data, os.fspath(path), session_id)

    @staticmethod
    def load_model_with_q(ge_model: GeModel, input_queue: DataInputer,
                          output_queue: deque[tuple[int, Outputs]]) -> int:
        """The model reads its inputs from ``input_queue`` and appends (status, outputs) to
        ``output_queue``, on its Run loop (GE's LoadModelWithQ binds mbuf queues; here the
        queue is the model's DataInputer). Queued work runs when the loop is joined."""
        model_id = GraphLoader.load_model_online(ge_model)
        model = ModelManager.get_instance().get_model(model_id)
        model.data_inputer = input_queue
        model.listener = lambda status, outputs: output_queue.append((status, outputs))
        model.model_run_start()
        return model_id

    @staticmethod
    def unload_model(model_id: int) -> None:
        ModelManager.get_instance().unload(model_id)
