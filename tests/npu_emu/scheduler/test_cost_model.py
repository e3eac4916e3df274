"""The cost model: cube ops by FLOPs, vector ops by bytes, copies and comm by bandwidth."""
from npu_emu.scheduler.cost_model import CostModel, Unit, cube_flops, default_unit


def test_cube_ops_cost_flops_and_vector_ops_cost_bytes():
    cost = CostModel()
    assert cube_flops("MatMul", [(64, 128), (128, 32)], [(64, 32)]) == 2 * 64 * 32 * 128
    assert cube_flops("Gemm", [(128, 64), (128, 32)], [(64, 32)]) == 2 * 64 * 32 * 128
    assert cube_flops("Conv", [(1, 3, 8, 8), (16, 3, 3, 3)], [(1, 16, 6, 6)]) == \
        2 * 16 * 36 * 27
    mm = cost.kernel_ns("MatMul", Unit.AI_CORE, [(64, 128), (128, 32)], [(64, 32)], 49152)
    assert mm == cost.launch_ns + 2 * 64 * 32 * 128 // 8000 + 1
    relu = cost.kernel_ns("Relu", Unit.AI_VECTOR, [(1024,)], [(1024,)], 8192)
    assert relu == cost.launch_ns + 8192 // 256
    assert cost.kernel_ns("Relu", Unit.AI_CPU, [], [], 8) > relu      # AI CPU launch is slow
    assert cost.memcpy_ns(2400, host_side=True) > cost.memcpy_ns(2400, host_side=False)
    assert cost.hccl_ns(0) == cost.launch_ns + cost.hccl_latency_ns
    assert default_unit("Conv") == Unit.AI_CORE and default_unit("Add") == Unit.AI_VECTOR
