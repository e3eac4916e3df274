"""Automatic fusion (GE's compiler/graph/optimize/autofuse/): pointwise chains become one
AscBackend node without hand-written patterns, unlike ge_core/pattern_fusion. GE runs it after
precision refinement (GraphManager::AfterPrecisionRefine), when AUTOFUSE_FLAGS enables it."""
from ge_core.autofuse import asc_backend  # noqa: F401 (registers AscBackend's InferShape)
from ge_core.autofuse.auto_fuse_pass import AutoFusePass, can_fuse
from ge_core.autofuse.autofuse_flags import autofuse_enabled

__all__ = ["AutoFusePass", "autofuse_enabled", "can_fuse"]
