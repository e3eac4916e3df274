"""FailedBranch: what a static build runs for an If or Case branch that always fails for the
model's shapes (its InferShape failed on shapes all known at compile time). Taken, it reports
that InferShape error, as a dynamic run would when the branch's run-time InferShape fails."""
from __future__ import annotations

import numpy as np

from npu_emu.kernels.registry import kernel


class BranchFailedError(ValueError):
    """The branch taken cannot run for these shapes; the message names its node and why."""


@kernel("FailedBranch")
def failed_branch(*, message: str = "") -> tuple[np.ndarray]:
    raise BranchFailedError(message)
