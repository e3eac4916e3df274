"""The attribute keys GE reads and writes on ops and graphs (GE's ge_attr_define.h).

Names follow GE's constant where ge_attr_define has one (``ATTR_NAME_*``, ``ATTR_MODEL_*``); a
comment says where GE keeps the value elsewhere or where our key differs from GE's. Every value
is set with ``OpDesc.set_attr`` so the debugger's watches see it change (a watch on
``stream_id`` fires inside logical stream assignment).
"""
from __future__ import annotations

# -- what the parser records -------------------------------------------------------------------
ATTR_NAME_INDEX = "index"                  # a Data node's graph input position
ATTR_NAME_WEIGHTS = "value"                # a Const's GeTensor (a Variable's initial value)
ATTR_NAME_PARENT_NODE_INDEX = "parent_node_index"   # a body's Data: the parent's input it reads
                                           # (GE: "_parent_node_index")
OPSET = "opset"                            # ours, on the root graph: the ONNX opset read
SOURCE = "source"                          # ours, on the root graph: the file it came from
SCAN_KEPT_REASON = "_scan_kept_reason"     # ours: why ScanPass left a Scan for the host CPU
INFER_DEFERRED = "_infer_deferred"           # ours, on an If/Case branch: why its InferShape
                                           # failed at compile time (it infers when taken)
INFER_ALWAYS_FAILS = "_infer_always_fails"   # ours, on such a branch: its failing node's input
                                           # shapes were all known, so taking it always fails
SCAN_STATE = "_scan_state"                 # ours: a Loop body's state Data that ScanPass made
                                           # from a Scan's: its shape is the Loop input's

# -- engine placement and partition --------------------------------------------------------------
ENGINE = "engine"                          # the engine that runs the op (GE: OpDesc's engine
                                           # name, a field rather than an attr)
PEER_LABEL = "_peer_label"                 # ours: pairs a partition's End with its PlaceHolder
ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES = "_datadump_original_op_names"  # what a fusion replaced
# An engine's graph optimizer may claim an op: the placer then asks only that engine
ATTR_NAME_OP_SPECIFIED_ENGINE_NAME = "_specified_engine_name"
ATTR_NAME_OP_SPECIFIED_KERNEL_LIB_NAME = "_specified_kernel_lib_name"
ATTR_NAME_PERFORMANCE_PRIOR = "_performance_prior"   # bool: the DVPP engine may take the op
                                                     # (GE's DVPP engine, dvpp_constexpr.h)

# -- streams (hicann/ge compiler/graph/build/stream/) ---------------------------------------------
STREAM_ID = "stream_id"                    # int; -1 = none (GE-local ops that launch no task)
                                           # (GE: OpDesc's stream id, a field)
LOGIC_STREAM_ID = "_logic_stream_id"       # the logical stream before physical split
ATTR_NAME_STREAM_LABEL = "_stream_label"   # user's label: same label, same stream
ATTR_NAME_PARALLEL_GROUP = "_parallel_group"   # same group on the same stream -> one new stream
NEW_STREAM_ID = "NewStreamId"              # UpdateForMdeGroup's input (GE: kNewStreamId)
ATTR_NAME_CONTINUOUS_STREAM_LABEL = "_continuous_stream_label"  # split streams stay together
ATTR_NAME_RTS_LABEL_NODE = "_rts_label_node"   # a label node: on its region's stream
ATTR_NAME_ACTIVE_STREAM_LIST = "active_stream_list"   # StreamActive: the streams it starts
ATTR_NAME_ACTIVE_LABEL_LIST = "_active_label_list"    # StreamActive: the labels it starts
ATTR_NAME_SUBGRAPH_FIRST_ACTIVE = "_subgraph_first_active"  # a body's first StreamActive
                                           # (GE: "subgraph_first_active")
ATTR_NAME_STREAM_SWITCH_COND = "switch_condition"     # StreamSwitch's compare mode (0 = equal)
ATTR_NAME_SWITCH_TRUE_BRANCH_FLAG = "_switch_true_branch_flag"   # StreamSwitch: starts Switch's
                                           # true branch (pred == 1) or its false one (pred == 0)
HCOM_ATTR_FUSION = "fusion"                # an HcomAllReduce's fusion id (> 0: fused)
EVENT_ID = "event_id"                      # on Send / Recv (GE: SEND_ / RECV_ATTR_EVENT_ID)
NOTIFY_ID = "notify_id"                    # on SendNotify / RecvNotify (GE: SEND_ / RECV_ATTR_
                                           # NOTIFY_ID)

# -- labels --------------------------------------------------------------------------------------
LABEL_ID = "_label_id"                     # on LabelSet / LabelGoto (GE: ATTR_NAME_LABEL_SWITCH_
                                           # INDEX, "_label_switch_index")
ATTR_NAME_LABEL_SWITCH_LIST = "_label_switch_list"   # the labels LabelSwitchByIndex picks from
# Ours, not GE's: GE keeps a lowered body as a subgraph, which its stream passes assign apart.
# Our label makers inline bodies into the parent graph, so the nodes say where they came from.
LABEL_REGION = "_label_region"             # on a maker's own nodes: "<graph>/<node>" it lowered
LABEL_BODIES = "_label_bodies"             # list: the bodies a node lies in, outer first, each
                                           # "<region>:<k>", k the body's place in its region

# -- multi-batch gears (GE's graph/passes/multi_batch/, ge_attr_define.cc) ------------------------
ATTR_NAME_BATCH_NUM = "_batch_num"         # Case (and what it lowers to): how many gears
ATTR_NAME_PRED_VALUE = "_pred_value"       # + "_<i>": gear i's values of the dynamic dims
ATTR_NAME_BATCH_LABEL = "_batch_label"     # "Batch_<i>" on every node of gear i (MultiBatchPass)
ATTR_INSERT_BY_MBATCH = "mbatch-inserted-node"     # made by the gear passes (the Case, its Data)
ATTR_USER_DESIGNEATE_SHAPE_ORDER = "user_designate_shape_order"  # --input_shape's input order
ATTR_DYNAMIC_TYPE = "mbatch_dynamic_type"  # DynamicInputType: batch 1, image size 2, dims 3
ATTR_MBATCH_ORIGIN_INPUT_DIMS = "_mbatch_origin_input_dims"  # a Data's dims, -1 where geared
ATTR_NAME_DYNAMIC_OUTPUT_DIMS = "_dynamic_output_dims"  # NetOutput: "gear,output,dims..." each
ATTR_NAME_SWITCH_DATA_TYPE = "_switch_data_type"        # StreamSwitch(N): 0 int32, 1 int64

# -- memory (hicann/ge compiler/graph/build/memory/) ----------------------------------------------
# GE keeps offsets and workspaces as OpDesc fields (input_i, output_i, workspace, workspace_bytes
# in ge_ir.proto's OpDef); here they are attrs, so a watch sees them set.
INPUT_OFFSET = "input_offset"              # list[int]: logical address of each input
OUTPUT_OFFSET = "output_offset"            # list[int]: logical address of each output
WORKSPACE = "workspace"                    # list[int]: logical addresses of workspaces
WORKSPACE_BYTES = "workspace_bytes"        # list[int]: their sizes
NO_REUSE_MEM_FLAG = "no_reuse_mem_flag"    # the op's memory is never reused (GE: kOpNoReuseMem)
# GE's TensorDescriptor.reuse_input_index, on the op here: output 0 is this input's buffer (a ref
# op, such as the MemcpyAsync that writes a loop's next carried value back into the carried one).
REUSE_INPUT_INDEX = "reuse_input_index"
ATTR_NAME_CONTINUOUS_INPUT = "continuous_input"     # inputs side by side in one block
ATTR_NAME_CONTINUOUS_OUTPUT = "continuous_output"   # outputs side by side in one block
# GE's no-task marks (ge_attr_define.cc; set by ConcatNotaskPass): the op launches no task, its
# inputs sit side by side with no padding, its output is their memory from this dim on.
ATTR_NAME_NOTASK = "_no_task"
ATTR_NAME_NOPADDING_CONTINUOUS_INPUT = "_no_padding_continuous_input"
ATTR_NAME_OUTPUT_REUSE_INPUT = "_output_reuse_input"
ATTR_NAME_REUSE_INPUT_ON_DIM_INDEX = "_reuse_input_on_dim_index"
ATTR_NAME_IS_FIXED_ADDR_PRIOR = "_is_fixed_addr_prior"   # its memory may not move (HCCL's ops)

# -- tensor descs, as the OM file stores them ---------------------------------------------------
ORIGIN_SHAPE = "origin_shape"              # GE: TensorUtils' origin_shape
ORIGIN_FORMAT = "origin_format"            # GE: TensorUtils' origin_format
ABSENT = "_absent"                         # ours: an optional input the model left out (GE marks
                                           # the desc invalid)

# -- the model: counts and sizes the loader allocates by (on the graph, then the ModelTaskDef) --
ATTR_MODEL_MEMORY_SIZE = "memory_size"
ATTR_MODEL_WEIGHT_SIZE = "weight_size"
ATTR_MODEL_STREAM_NUM = "stream_num"
ATTR_MODEL_EVENT_NUM = "event_num"
ATTR_MODEL_NOTIFY_NUM = "notify_num"
ATTR_MODEL_LABEL_NUM = "label_num"
ATTR_MODEL_SUB_MEMORY_INFO = "sub_memory_info"   # the feature map's sub memories (mem_map)
HEAD_STREAMS = "head_streams"              # ours: the streams nothing activates (bound HEAD)

# Annotations GE's compiler adds to an op (stream, engine, memory offsets ...): watchable like any
# attribute, but not part of the op's semantics, so kernels never see them. Private ones start
# with "_" as in GE (`_stream_label`, `_logic_stream_id`) and need no entry here.
GE_ANNOTATIONS = frozenset({STREAM_ID, ENGINE, INPUT_OFFSET, OUTPUT_OFFSET, WORKSPACE,
                            WORKSPACE_BYTES, ATTR_NAME_INDEX, ATTR_NAME_PARENT_NODE_INDEX,
                            ATTR_NAME_ACTIVE_STREAM_LIST, EVENT_ID, NOTIFY_ID, NEW_STREAM_ID,
                            NO_REUSE_MEM_FLAG, REUSE_INPUT_INDEX, ATTR_INSERT_BY_MBATCH,
                            ATTR_USER_DESIGNEATE_SHAPE_ORDER, ATTR_DYNAMIC_TYPE})
