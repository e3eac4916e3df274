"""The chip a runtime drives: its SoC version and the device properties the runtime keeps for it.

The real runtime holds one config per chip (hicann/runtime src/runtime/config/<chip>/
dev_info_reg.cc: the device properties and the optional features the chip supports). GE learns
a chip's limits only by asking the runtime: it calls rtSetSocVersion with ge.socVersion
(compiler/api/gelib/gelib.cc, inner_session.cc), then rtGetMaxStreamAndTask for the tasks a
stream may hold and rtGetRtCapability(FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH) to learn
whether the runtime grows model streams itself (AutoSplit), in which case it skips its own
stream split (compiler/graph/build/stream/stream_allocator.cc). Compiler and runtime therefore
read one profile.

Two classes of chip are modelled: a 910B (config 910_B_93: no AutoSplit, so GE splits long
streams) and a 950 (config 950: AutoSplit, 8 reserved SQEs for the stream extension).
"""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.errors import InvalidParamError

CAPTURE_TASK_RESERVED_NUM = 32   # stream.hpp: SQEs kept free on a stream for what must follow
HOST_SQ_MAX_COUNT = 32767        # stream.hpp: 32K-1 SQEs in a host buffer, then a slave stream
FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH = 3   # rtFeatureType_t (rt_external_device.h)


@dataclass(frozen=True)
class SocProfile:
    short_soc_version: str           # what every SoC version of the class starts with
    config: str                      # the runtime's config folder
    max_task_num_per_stream: int     # maxTaskNumPerStream: rtGetMaxStreamAndTask's answer
    max_alloc_stream_num: int        # maxAllocStreamNum
    rtsq_depth: int                  # rtsqDepth: a device SQ's entries
    persistent_stream_unlimited_depth: bool   # RT_FEATURE_MODEL_PERSISTENT_STREAM_UNLIMITED_DEPTH
    expand_stream_rsv_task_num: int  # expandStreamRsvTaskNum: AutoSplit's extra reserve

    def auto_split_full(self, count: int, sqe_num: int, host_sq_max_count: int) -> bool:
        """Whether ``sqe_num`` more SQEs on a stream holding ``count`` need a slave stream
        (task_david.cc's TryCreateAutoSplitSlaveStream)."""
        return (count + sqe_num + CAPTURE_TASK_RESERVED_NUM
                + self.expand_stream_rsv_task_num) >= host_sq_max_count


SOC_PROFILES = {
    "Ascend910B": SocProfile("Ascend910B", "910_B_93", max_task_num_per_stream=2013,
                             max_alloc_stream_num=32768, rtsq_depth=2048,
                             persistent_stream_unlimited_depth=False,
                             expand_stream_rsv_task_num=0),
    "Ascend950": SocProfile("Ascend950", "950", max_task_num_per_stream=2014,
                            max_alloc_stream_num=65535, rtsq_depth=2049,
                            persistent_stream_unlimited_depth=True,
                            expand_stream_rsv_task_num=8),
}
DEFAULT_SOC_VERSION = "Ascend910B1"


def soc_profile(soc_version: str) -> SocProfile:
    """The profile of a SoC version (Ascend910B1, Ascend950DT_9571, or the class's short name)."""
    for short, profile in SOC_PROFILES.items():
        if isinstance(soc_version, str) and soc_version.startswith(short):
            return profile
    raise InvalidParamError(f"soc version {soc_version!r} is not modelled; the chips are "
                            + ", ".join(f"{short}*" for short in SOC_PROFILES))
