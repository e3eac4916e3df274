"""The task scheduler and its queues (seed 003 §1.3.5, §1.3.7): tasks, SQ/CQ, the cost model, the
TS loop, and the trace events and enums the TS emits. It knows a stream only through
npu_emu/scheduler/protocols.py."""
