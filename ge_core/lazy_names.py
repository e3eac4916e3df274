"""A package's names loaded with their module on first use (PEP 562's module __getattr__), so
importing one submodule of a big package (for a constant) does not load all of it."""
from __future__ import annotations

from importlib import import_module
from typing import Any, Callable


def lazy_names(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """The package's ``__getattr__``: name -> the submodule (of ``package``) defining it."""
    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{where[name]}"), name)
    return __getattr__
