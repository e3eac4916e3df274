"""Which passes run in which stage, in GE's order (seed 001, "三个阶段优化").

Functions, not constants: pass objects keep per-run state, so every run (and every engine
subgraph on the thread pool) gets fresh instances.
"""
from __future__ import annotations

from ge_core.passes import GraphPass
