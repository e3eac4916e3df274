"""One name for a stream on every face: GE's logical stream 0, bound at load to the runtime's
stream 1, is ``s0/rt1``; a runtime stream GE did not bind (a host program's, the runtime's own)
is ``rt1``; a logical stream before load is ``s0``. DavinciModel names each stream it binds on
the runtime (Runtime.name_stream), so the emulator's own messages say the same."""
from __future__ import annotations

from npu_emu.base.stream_name import rt_stream_name


def logical_stream_name(logical_id: int) -> str:
    return f"s{logical_id}"


def stream_label(rt_id: int, logical_id: int | None = None) -> str:
    if logical_id is None:
        return rt_stream_name(rt_id)
    return f"{logical_stream_name(logical_id)}/{rt_stream_name(rt_id)}"
