"""ModelManager: the registry of loaded models (GE's model_manager.cc), one per World.

GE's is a process singleton; here ``ModelManager.get_instance()`` answers the *current world's*
(npu_emu/world.py: ``World.instance``), so a new run starts with no models. It keeps

- ``model_map``: model id -> DavinciModel (static, sunk to the device), and
  ``hybrid_model_map``: model id -> HybridDavinciModel (dynamic shapes, ge_core.runtime.hybrid);
  ids are shared, from 1. ``load_model`` chooses between them as GE's LoadModelOnline does
  (IsNeedHybridLoad), and ``execute_model`` runs either;
- weight sharing: models loaded from the same weights (a fork of a graph, the same OM loaded
  twice) share one device copy of them, freed with the last model that uses it;
- the session -> device bookkeeping (GE's sess_id_to_device_ids_), so destroying a session
  unloads its models;
- full release on unload: tasks, streams, events, labels, memory, the Run loop's thread.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ge_core.graph import ComputeGraph, GraphUtils
from ge_core.om.ge_model import GeModel
from ge_core.ops.host_cpu_ops import needs_host
from ge_core.runtime.errors import GeError, InvalidModelIdError
from ge_core.runtime.hybrid.hybrid_davinci_model import HybridDavinciModel
from ge_core.runtime.model_io import DeviceBuffer
from ge_core.runtime.model_memory import FEATURE_MAP, FIXED_FEATURE_MAP, WEIGHT, host_to_device
from ge_core.runtime.v1.data_inputer import Inputs, Outputs
from ge_core.runtime.v1.davinci_model import DavinciModel
from npu_emu.world import current_world

if TYPE_CHECKING:
    from npu_emu.core.device import Device
    from npu_emu.core.stream import Stream

# What the compiler hands the loader (GE's GeRootModel): a built GeModel, or, for a graph whose
# dims are known only at run time, the compiled graph itself (it has no static build).
RootModel = GeModel | ComputeGraph


def root_graph(model: RootModel) -> ComputeGraph:
    """GeRootModel::GetRootGraph: the graph a model was built from, or the graph itself."""
    return model.graph if isinstance(model, GeModel) else model


@dataclass
class SharedWeights:
    """One device copy of a weight buffer and the models using it (GE's
    weights_mem_ids_to_addr_info_)."""

    device: Device
    addr: int
    data: bytes           # what was copied there: a model with the same bytes shares it
    users: list[int]      # model ids


class ModelManager:
    def __init__(self) -> None:
        self.model_map: dict[int, DavinciModel] = {}
        self.hybrid_model_map: dict[int, HybridDavinciModel] = {}
        self.weights: list[SharedWeights] = []   # the device copies, each found by its bytes
        self.sess_id_to_device_ids: dict[int, list[int]] = {}
        self._next_model_id = 1
        self._next_session_id = 1

    @staticmethod
    def get_instance() -> "ModelManager":
        return current_world().instance(ModelManager)

    # -- ids and sessions ----------------------------------------------------------------------
    def generate_model_id(self) -> int:
        model_id = self._next_model_id
        self._next_model_id += 1
        return model_id

    def create_session(self, device_id: int) -> int:
        session_id = self._next_session_id
        self._next_session_id += 1
        self.sess_id_to_device_ids[session_id] = [device_id]
        return session_id

    def destroy_session(self, session_id: int) -> None:
        """Unload every model the session loaded, and forget the session."""
        for model_id in [m for m, model in sorted(self.model_map.items())
                         if model.session_id == session_id]:
            self.unload(model_id)
        self.sess_id_to_device_ids.pop(session_id, None)

    # -- load / unload -------------------------------------------------------------------------
    @staticmethod
    def is_need_hybrid_load(model: RootModel) -> bool:
        """GE's IsNeedHybridLoad: some tensor's dims are known only at run time, or something
        runs on, or lives in, the host (strings, sequences, a Scan ScanPass kept), which a sunk
        model cannot reach."""
        graph = root_graph(model)
        return GraphUtils.is_unknown_shape_graph(graph) or needs_host(graph)

    def load_model(self, model: RootModel, session_id: int = 0,
                   feature_map_base: int | None = None,
                   weights_base: int | None = None,
                   fixed_feature_map_base: int | None = None) -> int:
        """Load ``model`` on the current device; returns its model id (GE's LoadModelOnline).
        A model with unknown dims loads as a HybridDavinciModel, any other as a DavinciModel,
        sunk. ``feature_map_base`` / ``weights_base``: memory the caller provides for a static
        model's feature map (set feature memory base) or weights (set const memory base, filled
        by the caller); otherwise it allocates its feature map and shares weights where it can.
        ``fixed_feature_map_base``: where the feature map's fixed part lies
        (InitFixedFeatureMap)."""
        if self.is_need_hybrid_load(model):
            if feature_map_base is not None or weights_base is not None or \
                    fixed_feature_map_base is not None:
                raise GeError(f"model {model.name} has unknown dims: its memory is allocated "
                              f"at each execution, no base can be provided")
            return self.load_hybrid_model(root_graph(model))
        if not isinstance(model, GeModel):
            raise GeError(f"graph {model.name} is not built: a static model loads from its "
                          f"GeModel (build it first)")
        return self._load_davinci_model(model, session_id, feature_map_base, weights_base,
                                        fixed_feature_map_base)

    def load_hybrid_model(self, graph: ComputeGraph, stream: Stream | None = None,
                          executor: str = "sequential") -> int:
        """Load a compiled graph as a HybridDavinciModel on ``stream`` (default: the current
        device's default stream), whatever its dims (GE's DoLoadHybridModelOnline)."""
        model_id = self.generate_model_id()
        model = HybridDavinciModel(graph, model_id)
        model.init(stream, executor)
        self.hybrid_model_map[model_id] = model
        return model_id

    def _load_davinci_model(self, ge_model: GeModel, session_id: int,
                            feature_map_base: int | None, weights_base: int | None,
                            fixed_feature_map_base: int | None = None) -> int:
        model_id = self.generate_model_id()
        model = DavinciModel(model_id, ge_model, session_id)
        provided = {} if feature_map_base is None else {FEATURE_MAP: feature_map_base}
        if fixed_feature_map_base is not None:
            provided[FIXED_FEATURE_MAP] = fixed_feature_map_base
        shared = None
        if weights_base is not None:
            provided[WEIGHT] = weights_base
        elif ge_model.weights:
            shared = self._share_weights(model.device, ge_model.weights, model_id)
            provided[WEIGHT] = shared.addr
        try:
            model.init(provided)
        except BaseException:
            if shared is not None:
                self._drop_weights(shared, model_id)
            raise
        self.model_map[model_id] = model
        return model_id

    def _share_weights(self, device: Device, weights: bytes, model_id: int) -> SharedWeights:
        # The bytes compared with each copy's (lengths first, so most compare nothing), where
        # hashing every load's weights cost VGG-19's 548 MB half a second.
        shared = next((s for s in self.weights
                       if s.device is device and s.data == weights), None)
        if shared is None:
            addr = device.malloc(len(weights))
            host_to_device(device, addr, weights)
            shared = SharedWeights(device, addr, weights, [])
            self.weights.append(shared)
        shared.users.append(model_id)
        return shared

    def _drop_weights(self, shared: SharedWeights, model_id: int) -> None:
        shared.users.remove(model_id)
        if not shared.users:
            shared.device.free(shared.addr)
            self.weights = [s for s in self.weights if s is not shared]

    def unload(self, model_id: int) -> None:
        hybrid = self.hybrid_model_map.pop(model_id, None)
        if hybrid is not None:
            hybrid.unload()
            return
        model = self.get_model(model_id)
        del self.model_map[model_id]
        try:
            model.release()
        finally:
            for shared in [s for s in self.weights if model_id in s.users]:
                self._drop_weights(shared, model_id)

    def get_model(self, model_id: int) -> DavinciModel:
        model = self.model_map.get(model_id)
        if model is None:
            known = ", ".join(map(str, sorted(self.model_map))) or "none"
            raise InvalidModelIdError(f"no loaded model {model_id} (loaded: {known})")
        return model

    def get_hybrid_model(self, model_id: int) -> HybridDavinciModel | None:
        return self.hybrid_model_map.get(model_id)

    # -- execute -------------------------------------------------------------------------------
    def execute_model(self, model_id: int, inputs: Inputs,
                      outputs: Sequence[DeviceBuffer] | None = None, stream: Stream | None = None,
                      timeout_ms: int | None = None) -> Outputs | None:
        """One execution of a loaded model, hybrid or sunk (GE's ExecuteModel): a
        DavinciModel's NnExecute, or a HybridDavinciModel's Execute on host arrays."""
        hybrid = self.get_hybrid_model(model_id)
        if hybrid is None:
            return self.get_model(model_id).nn_execute(inputs, outputs, stream,
                                                       timeout_ms=timeout_ms)
        if outputs is not None or stream is not None:
            raise GeError(f"hybrid model {model_id} ({hybrid.graph.name}) executes on host "
                          f"arrays, on its own stream: no output buffers or stream")
        return hybrid.execute(inputs, timeout_ms).outputs

