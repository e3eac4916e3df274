"""The registration hook, the one sanctioned upward reference: how ``acl.mdl`` reaches GE.

In CANN, libascendcl's aclmdlLoadFromFile / aclmdlExecute are implemented by GE's runtime,
which libascendcl loads at run time (dlopen). The emulated runtime must not import ge_core (the
layers point down), so GE registers its loader here when ``ge_core.runtime`` is imported, and
``model_loader()`` imports that package by name on first use if nobody has yet - the dlopen.
What crosses the boundary is plain data: ints, bytes, device addresses and the descriptions
below. GE's managers behind the loader (ModelManager, SingleOpManager) need no registration:
each asks the current World for its instance (``World.instance``, npu_emu/world.py).
tests/test_layers.py allows this one import of a layer above and no other.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from npu_emu.base.errors import ACL_ERROR_GE_FAILURE, AclError

if TYPE_CHECKING:
    from npu_emu.core.stream import Stream

GE_RUNTIME = "ge_core.runtime"   # the package that registers the loader (libge_runtime.so)


@dataclass(frozen=True)
class TensorDescInfo:
    """One model input or output as aclmdlDesc reports it."""

    name: str
    dims: tuple[int, ...]
    dtype: str        # numpy dtype name
    format: int       # aclFormat
    size: int         # bytes


@dataclass(frozen=True)
class ModelDescription:
    inputs: tuple[TensorDescInfo, ...]
    outputs: tuple[TensorDescInfo, ...]


class ModelLoader(Protocol):
    def load_from_file(self, path: str) -> int: ...

    def load_from_data(self, data: bytes, source: str) -> int: ...

    def unload(self, model_id: int) -> None: ...

    def describe(self, model_id: int) -> ModelDescription: ...

    def execute(self, model_id: int, inputs: list[tuple[int, int]],
                outputs: list[tuple[int, int]], stream: Stream | None) -> int:
        """Run with device buffers (addr, size); ``stream`` None: synchronously. Returns the
        status of a synchronous run (0, or 507023 if it was aborted)."""
        ...


_loader: list[ModelLoader] = []


def register_model_loader(loader: ModelLoader) -> None:
    _loader[:] = [loader]


def model_loader() -> ModelLoader:
    if not _loader:
        importlib.import_module(GE_RUNTIME)
    if not _loader:
        raise AclError(f"no model loader: {GE_RUNTIME} registered none", ACL_ERROR_GE_FAILURE)
    return _loader[0]
