"""String kernels: StringNormalizer, StringConcat, StringSplit, RegexFullMatch. Strings are
object arrays of Python str (how onnx's numpy_helper reads a STRING tensor); each op is a numpy
ufunc made of a Python string method, so broadcasting and shapes are numpy's."""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from npu_emu.kernels.elementwise import one_output
from npu_emu.kernels.registry import kernel

_concat = np.frompyfunc(lambda a, b: a + b, 2, 1)


@one_output("StringConcat")
def string_concat(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.asarray(_concat(x, y), dtype=object)  # a 0-d ufunc result is a bare str


@one_output("RegexFullMatch")
def regex_full_match(x: np.ndarray, *, pattern: str) -> np.ndarray:
    # The spec names RE2's syntax; Python's re reads the common subset alike.
    try:
        regex = re.compile(pattern)
    except re.error as err:
        raise ValueError(f"pattern {pattern!r} is not a regular expression: {err}") from None
    matches = np.frompyfunc(lambda s: regex.fullmatch(s) is not None, 1, 1)
    return np.asarray(matches(x), dtype=bool)


@kernel("StringSplit")
def string_split(x: np.ndarray, *, delimiter: str = "",
                 maxsplit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Y: x's shape + [most pieces], short rows padded with ""; Z: each string's piece count.
    No delimiter (or "") splits at runs of whitespace, as Python's str.split() does."""
    split = np.frompyfunc(lambda s: s.split(delimiter or None, -1 if maxsplit is None else
                                            maxsplit), 1, 1)
    pieces = split(x) if x.size else np.empty(x.shape, object)
    counts = np.frompyfunc(len, 1, 1)(pieces).astype(np.int64) if x.size else \
        np.zeros(x.shape, np.int64)
    width = int(counts.max(initial=0))
    y = np.full(x.shape + (width,), "", object)
    for index in np.ndindex(x.shape):
        y[index][:counts[index]] = pieces[index]
    return y, counts


@one_output("StringNormalizer")
def string_normalizer(x: np.ndarray, *, case_change_action: str = "NONE",
                      is_case_sensitive: int = 0, locale: str = "",
                      stopwords: Sequence[str] | None = None) -> np.ndarray:
    """Drops the elements that are stopwords (compared ignoring case unless is_case_sensitive),
    then changes the case of the rest. x is [C] or [1, C]; if nothing is left, one "" stays."""
    words = x.reshape(-1)
    if stopwords:
        fold = (lambda s: s) if is_case_sensitive else str.lower
        stops = {fold(w) for w in stopwords}
        words = words[[fold(w) not in stops for w in words]]
    change = {"LOWER": str.lower, "UPPER": str.upper}.get(case_change_action)
    if change is not None:
        words = np.frompyfunc(change, 1, 1)(words)
    if not words.size:
        words = np.array([""], object)
    return words.astype(object).reshape(x.shape[:-1] + (words.size,))
