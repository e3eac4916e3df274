"""numpy kernels, grouped by family; the executable spec of what each op computes."""
from npu_emu.kernels.registry import (Kernel, UnknownKernelError, get_kernel, has_kernel,
                                      kernel, known_ops)

__all__ = ["Kernel", "UnknownKernelError", "get_kernel", "has_kernel", "kernel", "known_ops"]
