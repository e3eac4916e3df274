"""GE's offline model (OM): our protobuf schema (proto/), the graph and task serialisers, the file
layout (model_file_header, partition_table, om_file), GeModel, om-info and the compile cache;
logical_memory: the logical addresses a built model's offsets use, which the loader maps.

    model = build_ge_model(graph)          # ge_core.compiler.task: tasks + weights + attrs
    save_om(model, "m.om"); model = load_om("m.om"); print(om_info("m.om"))
"""
from ge_core.om.compile_cache import CompileCache, cache_key
from ge_core.om.ge_model import GeModel
from ge_core.model_task_type import KernelType, ModelTaskType
from ge_core.om.om_file import OmFileError, load_om, load_om_bytes, om_bytes, save_om
from ge_core.om.om_info import om_info

__all__ = ["CompileCache", "GeModel", "KernelType", "ModelTaskType", "OmFileError",
           "cache_key", "load_om", "load_om_bytes", "om_bytes", "om_info", "save_om"]
