"""Graph dumps at GE's stage names, with GE's switches (ge_facts §7).

    DUMP_GE_GRAPH     1 full, 2 without data, 3 structure only (unset: no dumps)
    DUMP_GRAPH_LEVEL  1 all stages, 2 GE's whitelist (default), 3 only Build, 4 only PreRunBegin,
                      or "a|b" to match stage names by substring; ours: 0 = all stages and,
                      after every pass that changed the graph, the graph as that pass left it
    DUMP_GRAPH_PATH   files go to <path>/pid_<pid>_deviceid_<dev>/ (else ./), as GE's

Each dump is `ge_proto_<8-digit index>_graph_<id>_<stage>.txt` (our text IR) plus a `.dot`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ge_core.graph import ComputeGraph, dump_graph, to_dot
from ge_core.graph.dump import Detail

WHITELIST = ("PreRunBegin", "PreRunAfterNormalizeGraph", "AfterInfershape", "PreRunAfterPrepare",
             "PreRunAfterOptimizeOriginalGraph", "PreRunAfterOptimizeAfterStage1",
             "PreRunAfterOptimizeSubgraph", "PreRunAfterOptimizeGraphBeforeBuild", "Build",
             "ComputeGraphBeforeLowering", "ExeGraphBeforeOptimize", "ExecuteGraphAfterSplit")
LEVEL_EVERY_PASS = "0"


@dataclass(frozen=True)
class DumpConfig:
    directory: Path
    detail: Detail = Detail.NO_DATA
    level: str = "2"

    @staticmethod
    def from_env(env: Mapping[str, str] = os.environ) -> "DumpConfig | None":
        mode = env.get("DUMP_GE_GRAPH", "").strip()
        if mode not in ("1", "2", "3"):
            return None
        base = env.get("DUMP_GRAPH_PATH")
        directory = Path(base) / f"pid_{os.getpid()}_deviceid_0" if base else Path(".")
        return DumpConfig(directory, Detail(int(mode)), env.get("DUMP_GRAPH_LEVEL", "2").strip())

    def wants(self, stage: str) -> bool:
        if self.level in ("1", LEVEL_EVERY_PASS):
            return True
        if self.level == "2":
            return stage in WHITELIST
        if self.level == "3":
            return stage == "Build"
        if self.level == "4":
            return stage == "PreRunBegin"
        return any(part and part in stage for part in self.level.split("|"))

    @property
    def every_pass(self) -> bool:
        return self.level == LEVEL_EVERY_PASS


class GraphDumper:
    def __init__(self, config: DumpConfig | None, graph_id: int = 0) -> None:
        self.config = config
        self.graph_id = graph_id
        self.index = 0
        self.written: list[Path] = []

    def stage(self, graph: ComputeGraph, stage: str) -> None:
        if self.config is not None and self.config.wants(stage):
            self._write(graph, stage)

    def after_pass(self, graph: ComputeGraph, stage: str, pass_name: str) -> None:
        if self.config is not None and self.config.every_pass:
            self._write(graph, f"{stage}_{pass_name}")

    def _write(self, graph: ComputeGraph, stage: str) -> None:
        self.config.directory.mkdir(parents=True, exist_ok=True)
        stem = f"ge_proto_{self.index:08d}_graph_{self.graph_id}_{stage}"
        self.index += 1
        text = self.config.directory / f"{stem}.txt"
        text.write_text(dump_graph(graph, self.config.detail))
        dot = self.config.directory / f"{stem}.dot"
        dot.write_text(to_dot(graph))
        self.written += [text, dot]
