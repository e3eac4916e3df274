"""A count and its noun in agreement: `1 task`, `3 tasks`, `1 notify`, `2 notifies`. Every face
says how many of something there are, and `1 tasks` reads as a slip."""
from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``plural``, else noun + s) unless ``n`` is 1."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
