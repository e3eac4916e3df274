"""HybridMemAssigner: run several assigners, keep the smallest (hybrid_mem_assigner.cc).

GE runs BinaryBlock and MaxBlock, and in MemoryPriority mode four BinaryBlock variants that
reuse any big-enough released block ("range"), trying the smallest or largest first, among
equals the first or last released (frfr / frlr). We run them all (they are cheap here) plus our
two offset assigners (greedy_mem_assigner.py); ties go to the earlier in this table, so the
choice is deterministic. The offset assigners check each item against every one placed, which
is quadratic: by default they run on graphs of at most OFFSET_ASSIGNER_MAX_ITEMS tensors (every
light model), and a bigger graph keeps GE's own block assigners, which are linear. Naming them
in the options runs them whatever the size.
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


def _range_binary(ascending: bool, first_release: bool) -> Callable[[], MemAssigner]:
    name = "range_binary_block_" + ("ascending" if ascending else "descending") + \
        ("_frfr" if first_release else "_frlr")
    return lambda: BinaryBlockMemAssigner(ReuseStrategy(True, ascending, first_release), name)


ASSIGNERS: dict[str, Callable[[], MemAssigner]] = {
    "binary_block": BinaryBlockMemAssigner,
    "max_block": lambda: MaxBlockMemAssigner(ReuseStrategy(use_range=True)),
    "range_binary_block_descending_frfr": _range_binary(False, True),
    "range_binary_block_ascending_frfr": _range_binary(True, True),
    "range_binary_block_descending_frlr": _range_binary(False, False),
    "range_binary_block_ascending_frlr": _range_binary(True, False),
    "greedy_by_size": GreedyBySizeMemAssigner,
    "best_fit_search": BestFitSearchMemAssigner,
}
QUADRATIC = frozenset({"greedy_by_size", "best_fit_search"})
OFFSET_ASSIGNER_MAX_ITEMS = 4096


class HybridMemAssigner:
    def __init__(self, names: tuple[str, ...] | None = None) -> None:
        self.by_default = names is None
        names = tuple(ASSIGNERS) if names is None else names
        unknown = [n for n in names if n not in ASSIGNERS]
        if unknown or not names:
            raise ValueError(f"unknown memory assigner(s) {', '.join(unknown) or '(none)'}; "
                             f"assigners: {', '.join(ASSIGNERS)}")
        self.names = names

    def assign(self, info: MemAssistInfo) -> tuple[FmLayout, dict[str, int]]:
        """The smallest layout, and every assigner's total in the order they ran."""
        names = self.names
        if self.by_default and len(info.items) > OFFSET_ASSIGNER_MAX_ITEMS:
            names = tuple(n for n in names if n not in QUADRATIC)
        layouts = [ASSIGNERS[n]().assign(info) for n in names]
        best = min(layouts, key=lambda layout: layout.total)
        return best, {n: layout.total for n, layout in zip(names, layouts)}
