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
    from npu_emu.task import Task


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
