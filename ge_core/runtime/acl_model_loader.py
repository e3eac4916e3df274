"""What the ACL offline-model calls reach in GE (aclmdlLoadFromFile, aclmdlGetDesc,
aclmdlExecute, aclmdlUnload -> GeExecutor -> GraphLoader / ModelManager). The emulated
libascendcl imports this module by name on first use and registers its AclModelLoader
(npu_emu/acl/model_loader.py); importing it registers nothing."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ge_core.runtime.model_io import DeviceBuffer, IoDesc
from ge_core.runtime.v1.graph_loader import GraphLoader
from ge_core.runtime.v1.model_manager import ModelManager
from npu_emu.acl.model_loader import ModelDescription, TensorDescInfo

if TYPE_CHECKING:
    from npu_emu.core.stream import Stream


def _info(io: IoDesc) -> TensorDescInfo:
    return TensorDescInfo(io.name, io.dims, io.dtype.name, int(io.format), io.nbytes)


class AclModelLoader:
    def load_from_file(self, path: str) -> int:
        return GraphLoader.load_model_from_file(path)

    def load_from_data(self, data: bytes, source: str) -> int:
        return GraphLoader.load_model_from_data(data, source)

    def unload(self, model_id: int) -> None:
        GraphLoader.unload_model(model_id)

    def describe(self, model_id: int) -> ModelDescription:
        model = ModelManager.get_instance().get_model(model_id)
        return ModelDescription(tuple(map(_info, model.inputs)), tuple(map(_info, model.outputs)))

    def execute(self, model_id: int, inputs: list[tuple[int, int]],
                outputs: list[tuple[int, int]], stream: Stream | None) -> int:
        model = ModelManager.get_instance().get_model(model_id)
        model.nn_execute([DeviceBuffer(*b) for b in inputs], [DeviceBuffer(*b) for b in outputs],
                         stream)
        return model.last_status if stream is None else 0
