"""SQ/CQ (seed 003 §1.3.5): how a stream and the task scheduler talk.

A stream's tasks become SQEs on its submission queue (SQ), a ring of fixed depth: the host
writes at the tail, the task scheduler (TS) reads at the head, and a full SQ blocks the host
until the TS frees a slot. The TS reports each retired SQE on the stream's completion queue
(CQ), which the host reclaims when it synchronizes.

The ring is kept unrolled: ``entries`` holds the SQEs from stream position ``base`` on, and
``head`` is the index in ``entries`` of the SQE the TS reads next, so an SQE's position on its
stream is ``base`` + its index. An ordinary stream's consumed SQEs are dropped from time to time
(``compact``); a model stream keeps its SQEs, because every execution runs them again from
wherever an activation or a label jump sets ``head``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from npu_emu.scheduler.task import Task


class SubmissionQueue:
    __slots__ = ("entries", "head", "base", "depth")

    def __init__(self, depth: int) -> None:
        self.entries: list[Task] = []
        self.head = 0          # index in entries of the SQE the TS reads next
        self.base = 0          # stream position of entries[0]: SQEs consumed and dropped
        self.depth = depth

    @property
    def pending(self) -> int:
        """SQEs written and not yet read by the TS."""
        return len(self.entries) - self.head

    @property
    def head_pos(self) -> int:
        """The stream position of the SQE the TS reads next."""
        return self.base + self.head

    @property
    def tail_pos(self) -> int:
        """The stream position the host writes next."""
        return self.base + len(self.entries)

    # The head moves only here: the TS consumes the head SQE (retire), an activation or a label
    # jump sets where a model stream runs from (seek), a drained or aborted model stream goes
    # back to its start (rewind).
    def retire(self) -> Task:
        """The TS is done with the head SQE: return it and move the head past it."""
        h = self.head
        self.head = h + 1
        return self.entries[h]

    def seek(self, index: int) -> None:
        """Read next from ``index`` (a model stream activated there, or a label jumped to)."""
        self.head = index

    def rewind(self) -> None:
        """A model stream's SQ, run to its end or aborted: the next run reads from the start."""
        self.head = 0

    def load(self, entries: list[Task], depth: int) -> None:
        """LoadComplete under AutoSplit: the SQ the device allocates now (at least ``depth``
        deep) receives the host buffer's SQEs in one batch (SqSwitchStreamBatch + SendSqe)."""
        self.entries = entries
        self.depth = max(self.depth, depth)

    def compact(self) -> None:
        """Drop the SQEs the TS has consumed, so a long-lived stream stays small."""
        del self.entries[:self.head]
        self.base += self.head
        self.head = 0

    def clear(self) -> None:
        """Empty, from position 0 (a stream bound to a model, or unbound from one)."""
        self.entries.clear()
        self.head = self.base = 0


class CompletionQueue:
    __slots__ = ("tail", "head")

    def __init__(self) -> None:
        self.tail = 0          # completions the TS has reported
        self.head = 0          # completions the host has reclaimed

    @property
    def unreclaimed(self) -> int:
        return self.tail - self.head

    def reclaim(self) -> None:
        """The host takes every completion reported so far (a synchronize)."""
        self.head = self.tail
