"""Attention refuses Q, K, V and mask shapes that ONNX's contract rules out, in the op's words,
where it computed something else than the reference evaluator (Q with fewer heads than K/V
grouped into none: a 0-head output; a mask with more query rows than Q: a result with those
rows) or failed with numpy's words. Shapes it takes still match the reference."""
from __future__ import annotations

import re

import numpy as np
import pytest

from ge_core.parser import ParseError, parse_onnx
from kernel_oracle import check_kernel, one_node_model, run_kernel

F4 = np.float32


def _t(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(F4)


def test_grouped_query_attention_with_a_mask_matches_the_reference():
    check_kernel("Attention", [_t(2, 6, 4, 8), _t(2, 3, 5, 8), _t(2, 3, 5, 8), _t(4, 5)], 23,
                 rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("inputs, attrs, said", [
    ([_t(2, 1, 4, 8), _t(2, 3, 5, 8), _t(2, 3, 5, 8)], {},
     "Q's 1 heads are no multiple of K's and V's 3"),
    ([_t(1, 3, 4, 8), _t(2, 3, 5, 8), _t(2, 3, 5, 8)], {},
     "Q, K and V have batches 1, 2 and 2"),
    ([_t(2, 3, 4, 8), _t(2, 3, 5, 8), _t(2, 3, 6, 8)], {},
     "K has 3 heads of 5 keys, V 3 of 6"),
    ([_t(2, 3, 4, 8), _t(2, 3, 5, 4), _t(2, 3, 5, 8)], {},
     "Q's head size 8 is not K's 4"),
    ([_t(2, 3, 1, 8), _t(2, 3, 5, 8), _t(2, 3, 5, 8), _t(4, 5)], {},
     "attn_mask of shape [4, 5] does not broadcast to the scores [batch, heads, q, kv] "
     "[2, 3, 1, 5]"),
    ([_t(2, 4, 10), _t(2, 5, 12), _t(2, 5, 12)], dict(q_num_heads=3, kv_num_heads=3),
     "Q's hidden size 10 does not split into 3 heads"),
])
def test_shapes_outside_the_contract_are_refused_by_name(inputs, attrs, said):
    with pytest.raises(ValueError, match="^" + re.escape(said)):
        run_kernel("Attention", inputs, 23, **attrs)


@pytest.mark.parametrize("q, heads, said", [
    (_t(2, 1, 12), 3, "Q has 1 steps, K and V 4"),            # numpy's index error before
    (_t(2, 4, 8), 2, "Q's 2 heads are no multiple of K's and V's 3"),
])
def test_linear_attention_refuses_q_unlike_k_and_v(q, heads, said):
    with pytest.raises(ValueError, match="^" + re.escape(said)):
        run_kernel("LinearAttention", [q, _t(2, 4, 12), _t(2, 4, 12)], 25, q_num_heads=heads,
                   kv_num_heads=3, update_rule="linear")


def test_a_model_whose_q_heads_k_cannot_share_is_refused_at_parse():
    model, _ = one_node_model("Attention", [_t(2, 1, 4, 8), _t(2, 3, 5, 8), _t(2, 3, 5, 8)], 23)
    with pytest.raises(ParseError, match="node 'Attention_0'.*Q's 1 heads are no multiple"):
        parse_onnx(model)
