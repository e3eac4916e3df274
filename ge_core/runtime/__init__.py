"""GE's runtime: loading and executing what the compiler built (seed 000).

    v1/          GraphLoader -> ModelManager -> DavinciModel (TaskSink), or HybridDavinciModel
                 for unknown dims, as ModelManager chooses; the Session's executors
    v2/          lowering to an ExecuteGraph (Init / Main / DeInit), sequential and topological
                 executors, ModelV2Executor, StreamExecutor
    hybrid/      HybridDavinciModel: unknown shapes, host-scheduled node by node
    single_op/   one op compiled into a minimal graph, cached, executed (aclopExecute)

Helpers the executors share sit here: op_kernel (an op's descs and device addresses -> an
npu_emu kernel task; OpKernel), model_memory (a GeModel's logical segments on device memory,
weights and variables loaded), model_io (a model's inputs and outputs; DeviceBuffer), errors
(GE's errors, with the ACL codes the model calls return); acl_model_loader (what the ACL
offline-model calls reach: npu_emu/acl/model_loader.py imports it by name on first use and
registers its AclModelLoader, so importing this package registers nothing).
"""
