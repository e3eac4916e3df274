"""HybridMemAssigner: run several assigners, keep the smallest (hybrid_mem_assigner.cc).

GE runs BinaryBlock and MaxBlock. Under ge.exec.memoryOptimizationPolicy=MemoryPriority
(BlockMemAssigner's IsMemoryPriorityMode) it adds four BinaryBlock variants that reuse any
big-enough released block ("range"), trying the smallest or largest first, among equals the
first or last released (frfr / frlr). GE sorts the runs by total with std::sort and keeps the
first; over so few runs libstdc++ sorts by insertion, which keeps equal totals in GE's order, so
a tie goes to the earlier in that order - here ``min``, which keeps the first of equals.

The project's own offset assigners (greedy_mem_assigner.py) are not GE's: they run only when
asked (``MemoryOptions.offset_assigners``), and every face marks them "(not GE)". They check
each item against every one placed, which is quadratic in the tensors.
"""
from __future__ import annotations

from typing import Callable

from ge_core.compiler.memory.binary_block_mem_assigner import BinaryBlockMemAssigner
from ge_core.compiler.memory.block_mem_assigner import ReuseStrategy
from ge_core.compiler.memory.greedy_mem_assigner import (BestFitSearchMemAssigner,
                                                         GreedyBySizeMemAssigner)
from ge_core.compiler.memory.max_block_mem_assigner import MaxBlockMemAssigner
from ge_core.compiler.memory.mem_assigner import FmLayout, MemAssigner
from ge_core.compiler.memory.mem_assist_info import MemAssistInfo
from ge_core.compiler.memory.mem_options import NOT_GE, MemoryOptions


def _range_binary(ascending: bool, first_release: bool) -> Callable[[], MemAssigner]:
    # GE's names (hybrid_mem_assigner.cc): "range-binary-block-descending-frfr" and so on
    name = "range-binary-block-" + ("ascending" if ascending else "descending") + \
        ("-frfr" if first_release else "-frlr")
    return lambda: BinaryBlockMemAssigner(ReuseStrategy(True, ascending, first_release), name)


ASSIGNERS: dict[str, Callable[[], MemAssigner]] = {
    "binary-block": BinaryBlockMemAssigner,
    "max-block": lambda: MaxBlockMemAssigner(ReuseStrategy(use_range=True)),
    "range-binary-block-descending-frfr": _range_binary(False, True),
    "range-binary-block-ascending-frfr": _range_binary(True, True),
    "range-binary-block-descending-frlr": _range_binary(False, False),
    "range-binary-block-ascending-frlr": _range_binary(True, False),
    "greedy_by_size": GreedyBySizeMemAssigner,
    "best_fit_search": BestFitSearchMemAssigner,
}
GE_DEFAULT = ("binary-block", "max-block")
MEMORY_PRIORITY = tuple(n for n in ASSIGNERS if n.startswith("range-"))


def assigner_names(options: MemoryOptions) -> tuple[str, ...]:
    """The assigners a build runs, in GE's order: the named ones, or GE's two, MemoryPriority's
    four and then ours as the options ask."""
    if options.assigners is not None:
        return options.assigners
    return (GE_DEFAULT + (MEMORY_PRIORITY if options.memory_priority else ())
            + (tuple(NOT_GE) if options.offset_assigners else ()))


class HybridMemAssigner:
    def __init__(self, names: tuple[str, ...]) -> None:
        unknown = [n for n in names if n not in ASSIGNERS]
        if unknown or not names:
            raise ValueError(f"unknown memory assigner(s) {', '.join(unknown) or '(none)'}; "
                             f"assigners: {', '.join(ASSIGNERS)}")
        self.names = names

    def assign(self, info: MemAssistInfo) -> tuple[FmLayout, dict[str, int]]:
        """The smallest layout, and every assigner's total in the order they ran."""
        layouts = [ASSIGNERS[n]().assign(info) for n in self.names]
        best = min(layouts, key=lambda layout: layout.total)
        return best, {n: layout.total for n, layout in zip(self.names, layouts)}
