"""String kernels: StringNormalizer, StringConcat, StringSplit, RegexFullMatch. Strings are
object arrays of Python str (how onnx's numpy_helper reads a STRING tensor); each op is a numpy
ufunc made of a Python string method, so broadcasting and shapes are numpy's. TfIdfVectorizer
counts the n-grams of a text's tokens, strings or integer ids."""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from npu_emu.op_impl.elementwise import one_output
from npu_emu.op_impl.registry import kernel

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


_TFIDF_MODES = ("TF", "IDF", "TFIDF")


@one_output("TfIdfVectorizer")
def tf_idf_vectorizer(x: np.ndarray, *, max_gram_length: int, min_gram_length: int,
                      max_skip_count: int, mode: str, ngram_counts: Sequence[int],
                      ngram_indexes: Sequence[int], pool_int64s: Sequence[int] | None = None,
                      pool_strings: Sequence[str] | None = None,
                      weights: Sequence[float] | None = None) -> np.ndarray:
    """Per row of x ([C] or [N, C]), how often each pooled n-gram occurs: its tokens at a
    distance of 1 + skip (skip up to ``max_skip_count``; a unigram counted once), gram lengths
    ``min_gram_length`` to ``max_gram_length``; the count lands at the gram's ngram_indexes
    entry, then TF keeps it, IDF gives the weight (or 1) where it is non-zero, TFIDF multiplies
    by the weight."""
    if mode not in _TFIDF_MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(_TFIDF_MODES)}")
    if not 1 <= min_gram_length <= max_gram_length or max_skip_count < 0:
        raise ValueError(f"gram lengths {min_gram_length}..{max_gram_length} (skip "
                         f"{max_skip_count}) are not 1 <= min <= max, with a skip of 0 or more")
    pool = list(pool_strings if pool_strings is not None else pool_int64s or [])
    if max_gram_length > len(ngram_counts):
        raise ValueError(f"max_gram_length {max_gram_length} is past the "
                         f"{len(ngram_counts)} gram length(s) ngram_counts starts in the pool")
    starts = list(ngram_counts)
    if any(not 0 <= a <= b <= len(pool) for a, b in zip(starts, starts[1:] + [len(pool)])):
        raise ValueError(f"ngram_counts {starts} are not offsets into the pool of {len(pool)}, "
                         f"each at or past the one before")
    grams = _pooled_grams(pool, starts, min_gram_length, max_gram_length)
    width = max(ngram_indexes) + 1 if len(ngram_indexes) else 0
    rows = x.reshape(1, -1) if x.ndim < 2 else x
    counts = np.zeros((rows.shape[0], width), np.float32)
    for row, tokens in zip(counts, rows.tolist()):
        for gram_id in _grams_in(tokens, grams, min_gram_length, max_gram_length,
                                 max_skip_count):
            row[ngram_indexes[gram_id]] += 1
    if weights is not None and len(weights) and mode != "TF":
        w = np.asarray(weights, np.float32)[:width]
        counts = np.where(counts > 0, w, 0) if mode == "IDF" else counts * w
    elif mode == "IDF":
        counts = (counts > 0).astype(np.float32)
    return counts.reshape(-1) if x.ndim < 2 else counts


def _pooled_grams(pool: list, starts: list[int], low: int, high: int) -> dict[tuple, int]:
    """Each pooled n-gram of a length in [low, high] -> its id (its place among all pooled
    grams, of any length: ngram_counts[k] is where the grams of length k + 1 start)."""
    grams: dict[tuple, int] = {}
    gram_id = 0
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(pool)
        size = k + 1
        for i in range(start, end - size + 1, size):
            if low <= size <= high:
                grams.setdefault(tuple(pool[i:i + size]), gram_id)
            gram_id += 1
    return grams


def _grams_in(tokens: list, grams: dict[tuple, int], low: int, high: int,
              max_skip: int) -> list[int]:
    found = []
    # a gram of two tokens or more spans its distance: none fits past len(tokens) - 1 (a skip
    # count of 2^31 is a loop over the row, not 2^31 distances)
    for distance in range(1, min(max_skip + 1, max(len(tokens) - 1, 1)) + 1):
        shortest = low if distance == 1 or low > 1 else 2   # unigrams: skips change nothing
        for start in range(len(tokens)):
            for size in range(shortest, high + 1):
                last = start + (size - 1) * distance
                if last >= len(tokens):
                    break
                gram_id = grams.get(tuple(tokens[start:last + 1:distance]))
                if gram_id is not None:
                    found.append(gram_id)
    return found
