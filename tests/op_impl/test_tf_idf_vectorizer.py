"""TfIdfVectorizer beyond the node suite's integer TF cases: string tokens, IDF and TFIDF with and
without weights, skips over a row of [N, C], all against onnxruntime."""
from __future__ import annotations

import numpy as np
import pytest

from kernel_oracle import check_kernel, onnxruntime, run_kernel

POOL = {"ngram_counts": [0, 4], "ngram_indexes": [0, 1, 2, 3, 4, 5, 6],
        "min_gram_length": 1, "max_gram_length": 2}
WORDS = ["a", "b", "c", "d", "a", "b", "b", "c", "c", "d"]   # 4 unigrams, then 3 bigrams


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("skip", [0, 2])
def test_string_tokens_in_every_mode(mode, weighted, skip):
    x = np.array([["a", "b", "c", "a", "b", "z"], ["c", "d", "a", "c", "c", "d"]], object)
    attrs = dict(POOL, pool_strings=WORDS, mode=mode, max_skip_count=skip)
    if weighted:
        attrs["weights"] = [0.5, 1.5, 2.0, 3.0, 0.25, 4.0, 1.0]
    (expected,) = onnxruntime("TfIdfVectorizer", [x], 9, **attrs)
    (got,) = run_kernel("TfIdfVectorizer", [x], 9, **attrs)   # (check_kernel's input check
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape)   # is numeric only)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_skip_count_past_the_row_reads_every_distance_the_row_holds():
    # a skip count of 2^31 had been a loop over 2^31 distances (a hang on the node suite's case)
    # (onnxruntime takes 8 s over 2^31 skips: its numbers for 4, the longest a 6-token row
    # holds a bigram at, are the same)
    x = np.array([[1, 1, 3, 3, 3, 7], [8, 6, 7, 5, 6, 8]], np.int32)
    attrs = dict(max_gram_length=2, min_gram_length=2, mode="TF", ngram_counts=[0, 4],
                 ngram_indexes=[0, 1, 2, 3, 4, 5, 6], pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])
    (expected,) = onnxruntime("TfIdfVectorizer", [x], 9, max_skip_count=4, **attrs)
    (got,) = run_kernel("TfIdfVectorizer", [x], 9, max_skip_count=1 << 31, **attrs)
    np.testing.assert_array_equal(got, expected)


def test_integer_ids_of_a_single_text_skip_bigrams_only():
    x = np.array([1, 2, 3, 1, 9, 2, 3, 4], np.int64)
    attrs = {"ngram_counts": [0, 3], "ngram_indexes": [0, 1, 2, 3, 4],
             "pool_int64s": [1, 2, 3, 1, 2, 2, 3], "min_gram_length": 2,
             "max_gram_length": 2, "max_skip_count": 3, "mode": "TF"}
    expected = onnxruntime("TfIdfVectorizer", [x], 9, **attrs)
    check_kernel("TfIdfVectorizer", [x], 9, expected, rtol=0, atol=0, **attrs)
