"""What the build stages write on nodes, and the logical memory map they share.

Every value is set with ``OpDesc.set_attr`` so the debugger's watches see it change (a watch on
``stream_id`` fires inside logical stream assignment). Names follow GE's where GE has one.
"""
from __future__ import annotations

from ge_core.graph import GeTensorDesc
from ge_core.graph.types import DataType

# -- streams (ge_facts §1-2) ---------------------------------------------------------------------
STREAM_ID = "stream_id"                 # int; -1 = none (GE-local ops that launch no task)
LOGIC_STREAM_ID = "_logic_stream_id"    # the logical stream before physical split
STREAM_LABEL = "_stream_label"          # user's label: same label, same stream
PARALLEL_GROUP = "_parallel_group"      # same group on the same stream -> one new stream
NEW_STREAM_ID = "NewStreamId"           # UpdateForMdeGroup's input
ACTIVE_STREAM_LIST = "active_stream_list"  # StreamActive: the streams it starts
EVENT_ID = "event_id"                   # on Send / Recv
NOTIFY_ID = "notify_id"                 # on SendNotify / RecvNotify
LABEL_ID = "_label_id"                  # on LabelSet / LabelGoto / LabelSwitchByIndex targets

# -- memory (ge_facts §3) ------------------------------------------------------------------------
INPUT_OFFSET = "input_offset"           # list[int]: logical address of each input
OUTPUT_OFFSET = "output_offset"         # list[int]: logical address of each output
WORKSPACE = "workspace"                 # list[int]: logical addresses of workspaces
WORKSPACE_BYTES = "workspace_bytes"     # list[int]: their sizes

MEM_ALIGN_SIZE = 512                    # offsets are aligned to this (mem_assigner.h)
# Logical bases of the segments. A task's args hold logical addresses; loading maps each
# segment onto device memory (GE's logical-address translation at DavinciModel init).
FEATURE_MAP_BASE = 0                    # feature map from 0; zero-copy I/O right after it
VAR_BASE = 32 << 30                     # variables (GE: 32 GiB)
WEIGHT_BASE = 48 << 30                  # weights (ours; GE keeps them in their own partition)
HOST_FM_BASE = 64 << 30                 # host feature map (GE: 64 GiB)


def align(n: int, to: int = MEM_ALIGN_SIZE) -> int:
    return -(-n // to) * to


def tensor_size(desc: GeTensorDesc) -> int:
    """GE's tensor size: raw bytes rounded up to 32, plus 32; an empty tensor takes 32."""
    n = desc.shape.num_elements()
    if n is None:
        raise ValueError(f"tensor {desc} has unknown dims: its size is known only at run time")
    item = 1 if desc.dtype in (DataType.DT_BOOL, DataType.DT_UNDEFINED) else \
        desc.dtype.to_numpy().itemsize
    return align(n * item, 32) + 32
