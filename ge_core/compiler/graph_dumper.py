"""Graph dumps at GE's stage names, with GE's switches (hicann/ge graph_metadef/graph/utils/
graph_utils.cc and ge_dump_graph_whitelist.h).

    DUMP_GE_GRAPH     1 full, 2 without data, 3 structure only (unset: no dumps)
    DUMP_GRAPH_LEVEL  1 every stage but the engine subgraphs', 2 GE's whitelist (default),
                      3 only Build, 4 only PreRunBegin, or "a|b" to match stage names by
                      substring; ours: 0 = every stage and, after every pass that changed the
                      graph, the graph as that pass left it
    DUMP_GRAPH_PATH   files go to <path>/pid_<pid>_deviceid_<dev>/ (else ./), as GE's
    DUMP_GRAPH_FORMAT which files, "|"-separated: ge_proto, onnx, readable

Each stage writes, as GE's GE_DUMP does, one file per format:

    ge_proto_<idx>_graph_<id>_<stage>.txt       the ModelDef (ge_ir.proto) in protobuf text
                                                format; Const weights only at level 1
    ge_onnx_<idx>_graph_<id>_<stage>.pbtxt      an ONNX ModelProto in text format (Netron)
    ge_readable_<idx>_graph_<id>_<stage>.txt    our one-line-per-node IR, and a .dot beside it

Each format numbers its files in the order they are made, with its own 8-digit counter per
process (GE keeps a static counter in each of GenDumpTxtFileName, GenDumpOnnxFileName and
GenDumpReadableTxtFileName); a process here is the World, so the Build dump follows the compile's
and a re-run in a fresh World numbers the same way. GE's default formats are ge_proto|onnx;
ours add the readable IR, which is what this workbench reads.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from google.protobuf import text_format

from ge_core.graph import ComputeGraph, dump_graph, to_dot
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS
from ge_core.graph.dump import Detail
from ge_core.om.model_serializer import model_def
from ge_core.om.onnx_utils import onnx_model
from ge_core.om.tensor_serializer import SerializeError
from npu_emu.world import current_world

WHITELIST = ("PreRunBegin", "PreRunAfterNormalizeGraph", "AfterInfershape", "PreRunAfterPrepare",
             "PreRunAfterOptimizeOriginalGraph", "PreRunAfterOptimizeAfterStage1",
             "PreRunAfterOptimizeSubgraph", "PreRunAfterOptimizeGraphBeforeBuild", "Build",
             "ComputeGraphBeforeLowering", "ExeGraphBeforeOptimize", "ExecuteGraphAfterSplit")
WHITELIST_KEYS = ("AutoFuseBeforeOptimize", "AutoFuseAfterOptimize", "RunCustomPass")
# Stage names of engine subgraphs and the like, which levels 1 and 2 leave out
SUBGRAPH_KEYS = ("partition", "OptimizeSubGraph", "Aicpu", "sub_graph")
LEVEL_EVERY_PASS = "0"
FORMATS = ("ge_proto", "onnx", "readable")
_PREFIX = {"ge_proto": "ge_proto", "onnx": "ge_onnx", "readable": "ge_readable"}
CONST_TYPES = ("Const", "Constant")


@dataclass(frozen=True)
class DumpConfig:
    directory: Path
    detail: Detail = Detail.NO_DATA
    level: str = "2"
    formats: tuple[str, ...] = FORMATS

    @staticmethod
    def from_env(env: Mapping[str, str] = os.environ) -> "DumpConfig | None":
        mode = env.get("DUMP_GE_GRAPH", "").strip()
        if mode not in ("1", "2", "3"):
            return None
        base = env.get("DUMP_GRAPH_PATH")
        directory = Path(base) / f"pid_{os.getpid()}_deviceid_0" if base else Path(".")
        asked = env.get("DUMP_GRAPH_FORMAT", "").strip().lower()
        formats = tuple(f for f in FORMATS if f in asked.split("|")) if asked else FORMATS
        return DumpConfig(directory, Detail(int(mode)), env.get("DUMP_GRAPH_LEVEL", "2").strip(),
                          formats)

    def wants(self, stage: str) -> bool:
        """GE's NoNeedDumpGraphBySuffix, negated."""
        if self.level == LEVEL_EVERY_PASS:
            return True
        of_a_subgraph = any(key in stage for key in SUBGRAPH_KEYS)
        if self.level == "1":
            return not of_a_subgraph
        if self.level == "2":
            return not of_a_subgraph and (stage in WHITELIST
                                          or any(key in stage for key in WHITELIST_KEYS))
        if self.level == "3":
            return stage == "Build"
        if self.level == "4":
            return stage == "PreRunBegin"
        return any(part and part in stage for part in self.level.split("|"))

    @property
    def every_pass(self) -> bool:
        return self.level == LEVEL_EVERY_PASS


class DumpFileIndex:
    """The next file index of each format in this World (GE's static atomic counters)."""

    def __init__(self) -> None:
        self._next: dict[str, int] = {}

    def take(self, fmt: str) -> int:
        index = self._next.get(fmt, 0)
        self._next[fmt] = index + 1
        return index


class GraphDumper:
    def __init__(self, config: DumpConfig | None, graph_id: int = 0) -> None:
        self.config = config
        self.graph_id = graph_id
        self.written: list[Path] = []
        self.skipped: list[str] = []   # formats a graph could not be written in, and why

    def stage(self, graph: ComputeGraph, stage: str) -> None:
        if self.config is not None and self.config.wants(stage):
            self._write(graph, stage)

    def after_pass(self, graph: ComputeGraph, stage: str, pass_name: str) -> None:
        if self.config is not None and self.config.every_pass:
            self._write(graph, f"{stage}_{pass_name}")

    def _write(self, graph: ComputeGraph, stage: str) -> None:
        self.config.directory.mkdir(parents=True, exist_ok=True)
        index = current_world().instance(DumpFileIndex)
        for fmt in self.config.formats:
            stem = f"{_PREFIX[fmt]}_{index.take(fmt):08d}_graph_{self.graph_id}_{stage}"
            try:
                self.written += getattr(self, f"_write_{fmt}")(graph, stem)
            except SerializeError as exc:   # GE skips a graph its serializer refuses, too
                self.skipped.append(f"dump {stem}: {exc}")

    def _write_ge_proto(self, graph: ComputeGraph, stem: str) -> list[Path]:
        model = model_def(graph, "")
        if self.config.detail != Detail.FULL:   # GE's not_dump_all: Const weights left out
            for op in (op for g in model.graph for op in g.op if op.type in CONST_TYPES):
                if ATTR_NAME_WEIGHTS in op.attr:
                    del op.attr[ATTR_NAME_WEIGHTS]
        path = self.config.directory / f"{stem}.txt"
        path.write_text(text_format.MessageToString(model))
        return [path]

    def _write_onnx(self, graph: ComputeGraph, stem: str) -> list[Path]:
        path = self.config.directory / f"{stem}.pbtxt"
        path.write_text(text_format.MessageToString(onnx_model(graph, self.config.detail)))
        return [path]

    def _write_readable(self, graph: ComputeGraph, stem: str) -> list[Path]:
        text, dot = (self.config.directory / f"{stem}{ext}" for ext in (".txt", ".dot"))
        text.write_text(dump_graph(graph, self.config.detail))
        dot.write_text(to_dot(graph))
        return [text, dot]
