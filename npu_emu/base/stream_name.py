"""A runtime stream's name in what the emulator says (faults, wait-for chains, an SQE's place).
The runtime knows only its own stream ids; GE binds its logical streams to them at load and
names each pair (ge_core/stream_label.py: ``s0/rt1``) through ``Runtime.name_stream``,
so a stream is called the same in the runtime's messages as on every face above. A stream
nobody named (a host program's, the runtime's own) is ``rt4``."""
from __future__ import annotations


def rt_stream_name(rt_id: int) -> str:
    return f"rt{rt_id}"
