"""The registration hook, the one sanctioned upward reference: how ``acl.mdl`` reaches GE.

In CANN, libascendcl's aclmdlLoadFromFile / aclmdlExecute are implemented by GE's runtime,
which libascendcl loads at run time (dlopen). The emulated runtime must not import ge_core (the
layers point down), so on first use ``model_loader()`` imports GE's loader module by name - the
dlopen - and registers the loader class it exports - the dlsym of its entry point. Importing
either side registers nothing: the registration is this one explicit call on the load path
(``register_model_loader`` also takes another loader, e.g. a test's).
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

GE_RUNTIME = "ge_core.runtime.acl_model_loader"   # GE's loader module (libge_runtime.so)
GE_ENTRY = "AclModelLoader"                      # the loader class it exports


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
        entry = getattr(importlib.import_module(GE_RUNTIME), GE_ENTRY, None)
        if entry is None:
            raise AclError(f"no model loader: {GE_RUNTIME} exports no {GE_ENTRY}",
                           ACL_ERROR_GE_FAILURE)
        register_model_loader(entry())
    return _loader[0]
