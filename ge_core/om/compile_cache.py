"""The compile cache (GE's model cache): an OM per key, where the key is the SHA-256 of the
input graph with its constants' bytes, so compiling the same model again reuses the last build.

A cached OM is checked (layout and checksum) before it is handed back, so a truncated or
corrupted entry is a miss, not a failure later; entries are written whole or not at all.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import SOURCE
from ge_core.om.model_serializer import IR_VERSION, model_def
from ge_core.om.om_file import OmFileError, read_om

_KEY = re.compile(r"[0-9a-f]{64}")


def cache_key(graph: ComputeGraph, salt: str = "") -> str:
    """SHA-256 of ``graph`` (nodes, edges, attrs, descs, constants' bytes, subgraphs) and
    ``salt``, which carries whatever else changes the build (compile options, say)."""
    model = model_def(graph, graph.name)
    if SOURCE in model.graph[0].attr:
        del model.graph[0].attr[SOURCE]
    digest = hashlib.sha256(f"gewb-om/{IR_VERSION}/{salt}\0".encode())
    digest.update(model.SerializeToString(deterministic=True))
    return digest.hexdigest()


class CompileCache:
    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"cache key {key!r} is not a SHA-256 hex digest")
        return self.directory / f"{key}.om"

    def get(self, key: str) -> bytes | None:
        """The OM cached under ``key``, or None (a damaged entry is removed and is a miss)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            read_om(data, str(path))
        except OmFileError:
            path.unlink(missing_ok=True)
            return None
        return data

    def put(self, key: str, om: bytes) -> Path:
        path = self.path(key)
        self.directory.mkdir(parents=True, exist_ok=True)
        # Write aside, then rename: a reader (another gewb) never sees half an entry.
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(om)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        return path
