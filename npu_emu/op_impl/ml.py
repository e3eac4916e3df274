"""Kernels of the ``ai.onnx.ml`` domain (classical machine learning): LabelEncoder, Binarizer,
ArrayFeatureExtractor and the tree ensembles.

Registered by qualified type (``ai.onnx.ml::Binarizer``): these are not default-domain ops. Their
versions differ in attributes only (LabelEncoder-4's tensor keys, the tree ensembles' double
``*_as_tensor`` twins), so one function serves every version.

Trees are walked for every sample at once: a vector of current node indices per tree, advanced
one level per step with the rule of each node (``_walk``) until every sample sits on a leaf.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from npu_emu.op_impl.axis import check_indices, outside
from npu_emu.op_impl.elementwise import one_output
from npu_emu.op_impl.registry import kernel

ML = "ai.onnx.ml::"


@one_output(ML + "Binarizer")
def binarizer(x: np.ndarray, *, threshold: float = 0.0) -> np.ndarray:
    return (x > threshold).astype(x.dtype)


@one_output(ML + "ArrayFeatureExtractor")
def array_feature_extractor(x: np.ndarray, indices: np.ndarray) -> np.ndarray:
    # Picks along the last axis; a vector comes out as one row (onnxruntime's reading).
    check_indices(indices, x.shape[-1], f"the last axis of X {list(x.shape)}", "Y")
    picked = np.take(x, indices.reshape(-1), axis=-1)
    return picked.reshape(1, -1) if x.ndim == 1 else picked


@one_output(ML + "LabelEncoder")
def label_encoder(x: np.ndarray, *, keys_floats: Sequence[float] | None = None,
                  keys_int64s: Sequence[int] | None = None,
                  keys_strings: Sequence[str] | None = None,
                  keys_tensor: np.ndarray | None = None,
                  values_floats: Sequence[float] | None = None,
                  values_int64s: Sequence[int] | None = None,
                  values_strings: Sequence[str] | None = None,
                  values_tensor: np.ndarray | None = None, default_float: float = -0.0,
                  default_int64: int = -1, default_string: str = "_Unused",
                  default_tensor: np.ndarray | None = None) -> np.ndarray:
    keys = next(k for k in (keys_floats, keys_int64s, keys_strings, keys_tensor) if k is not None)
    if values_tensor is not None:
        values = np.asarray(values_tensor)
        default = default_tensor.reshape(-1)[0] if default_tensor is not None else \
            _TENSOR_DEFAULTS[values.dtype.kind]
    elif values_floats is not None:
        values, default = np.asarray(values_floats, np.float32), default_float
    elif values_int64s is not None:
        values, default = np.asarray(values_int64s, np.int64), default_int64
    else:
        values, default = np.asarray(values_strings, object), default_string
    table = dict(zip(np.asarray(keys).tolist(), values.tolist()))
    found = [table.get(k, default) for k in x.reshape(-1).tolist()]
    return np.array(found, dtype=values.dtype).reshape(x.shape)


_TENSOR_DEFAULTS = {"O": "_Unused", "f": -0.0, "i": -1, "u": 0}


# -- tree ensembles ----------------------------------------------------------------------------
LEAF = -1
# TreeEnsemble-5's node modes; TreeEnsembleClassifier/Regressor name the same rules BRANCH_*.
_RULES = (np.less_equal, np.less, np.greater_equal, np.greater, np.equal, np.not_equal)
MEMBER = 6
_RULE_OF_NAME = {"BRANCH_LEQ": 0, "BRANCH_LT": 1, "BRANCH_GTE": 2, "BRANCH_GT": 3,
                 "BRANCH_EQ": 4, "BRANCH_NEQ": 5, "LEAF": LEAF}


class _Trees:
    """Nodes of every tree in one set of arrays, by global index; a leaf has rule LEAF."""

    def __init__(self, rule: np.ndarray, feature: np.ndarray, split: np.ndarray,
                 true_next: np.ndarray, false_next: np.ndarray, missing_true: np.ndarray,
                 members: dict[int, np.ndarray] | None = None) -> None:
        self.rule, self.feature, self.split = rule, feature, split
        self.true_next, self.false_next, self.missing_true = true_next, false_next, missing_true
        self.members = members or {}

    def walk(self, x: np.ndarray, roots: np.ndarray) -> np.ndarray:
        """The leaf each sample (row of ``x``) reaches in each tree: [samples, trees]. A tree's
        path passes each of its nodes once at most: a walk longer than the nodes are many went
        round a loop of branches (a model's ids naming an earlier node), which is refused
        rather than walked for ever."""
        bad = outside(self.feature[self.rule != LEAF], 0, x.shape[1])
        if bad is not None:
            raise ValueError(f"a branch reads feature {bad}, outside X's {x.shape[1]}")
        at = np.broadcast_to(roots, (len(x), len(roots))).copy()
        rows = np.broadcast_to(np.arange(len(x))[:, None], at.shape)
        for _ in range(len(self.rule) + 1):
            inner = self.rule[at] != LEAF
            if not inner.any():
                return at
            node, row = at[inner], rows[inner]
            value = x[row, self.feature[node]]
            rule = self.rule[node]
            go_true = np.isnan(value) & self.missing_true[node]
            for code, compare in enumerate(_RULES):
                here = rule == code
                go_true[here] |= compare(value[here], self.split[node[here]])
            for member, values in self.members.items():
                here = node == member
                go_true[here] |= np.isin(value[here], values)
            at[inner] = np.where(go_true, self.true_next[node], self.false_next[node])
        looping = ", ".join(map(str, sorted(set(at[self.rule[at] != LEAF].tolist()))[:3]))
        raise ValueError(f"the trees' branches loop: a walk passed all {len(self.rule)} nodes "
                         f"and never reached a leaf (still at node {looping})")


def _missing(tracks_true: Sequence[int] | None, n: int) -> np.ndarray:
    return np.zeros(n, bool) if tracks_true is None else np.asarray(tracks_true) != 0


def _aggregate(leaves: np.ndarray, weights: _LeafWeights, n_targets: int, how: str,
               base: object = None, zero_unreached: bool = True) -> np.ndarray:
    """Per sample and target, the weights of the leaves reached combined by ``how`` (SUM,
    AVERAGE, MIN, MAX), plus ``base``. A regression target no leaf reached scores 0, base or
    not (onnxruntime's has_score; the spec says nothing); a class scores its base."""
    samples, n_trees = leaves.shape
    bad = outside(weights.target, 0, n_targets)
    if bad is not None:
        raise ValueError(f"a leaf's target id {bad} is outside the {n_targets} target(s)")
    reached = leaves.reshape(-1)
    count = weights.count[reached]
    # Every (sample, tree) contributes each of its leaf's entries: their positions in ``weights``.
    first = np.repeat(weights.start[reached], count)
    entry = first + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    at = (np.repeat(np.repeat(np.arange(samples), n_trees), count), weights.target[entry])
    combine = {"SUM": np.add, "AVERAGE": np.add, "MIN": np.minimum, "MAX": np.maximum}.get(how)
    if combine is None:
        raise ValueError(f"aggregate_function {how!r} is not one of SUM, AVERAGE, MIN, MAX")
    out = np.full((samples, n_targets), {"MIN": np.inf, "MAX": -np.inf}.get(how, 0.0))
    combine.at(out, at, weights.weight[entry])
    if how == "AVERAGE":
        out /= n_trees
    hit = np.zeros(out.shape, bool)
    hit[at] = True
    out[~hit] = 0.0
    if base is not None:
        out += np.asarray(base, np.float64)
    return np.where(hit, out, 0.0) if zero_unreached else out


class _LeafWeights:
    """The (target, weight) entries of each node, grouped by node: node k's are
    ``target[start[k]:start[k] + count[k]]`` (interior nodes have none)."""

    def __init__(self, n_nodes: int, node: np.ndarray, target: Sequence[int],
                 weight: Sequence[float]) -> None:
        order = np.argsort(node, kind="stable")
        self.target = np.asarray(target, np.int64)[order]
        self.weight = np.asarray(weight, np.float64)[order]
        self.count = np.bincount(node, minlength=n_nodes)
        self.start = np.cumsum(self.count) - self.count


def _post_transform(scores: np.ndarray, how: str) -> np.ndarray:
    if how == "NONE":
        return scores
    if how == "LOGISTIC":
        return 1.0 / (1.0 + np.exp(-scores))
    if how == "SOFTMAX":
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    if how == "SOFTMAX_ZERO":
        # Softmax over the non-zero scores only; a zero stays zero (onnxruntime's ml_common.h).
        zero = np.abs(scores) <= 1e-7
        e = np.where(zero, 0.0, np.exp(scores - scores.max(axis=1, keepdims=True)))
        total = e.sum(axis=1, keepdims=True)
        return np.where(total == 0, 0.5, e / np.where(total == 0, 1, total))
    if how == "PROBIT":
        return np.sqrt(2) * _erf_inv(2 * scores - 1)
    raise ValueError(f"post_transform {how!r} is not one of NONE, LOGISTIC, SOFTMAX, "
                     f"SOFTMAX_ZERO, PROBIT")


def _erf_inv(x: np.ndarray) -> np.ndarray:
    # Winitzki's closed form (a = 0.147), the approximation onnxruntime's probit uses.
    ln = np.log((1 - x) * (1 + x))
    t = 2 / (np.pi * 0.147) + ln / 2
    return np.sign(x) * np.sqrt(np.sqrt(t * t - ln / 0.147) - t)


_POST_TRANSFORM_NAMES = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")
_AGGREGATE_NAMES = ("AVERAGE", "SUM", "MIN", "MAX")


@one_output(ML + "TreeEnsemble")
def tree_ensemble(x: np.ndarray, *, nodes_featureids: Sequence[int], nodes_splits: np.ndarray,
                  nodes_modes: np.ndarray, nodes_truenodeids: Sequence[int],
                  nodes_trueleafs: Sequence[int], nodes_falsenodeids: Sequence[int],
                  nodes_falseleafs: Sequence[int], leaf_targetids: Sequence[int],
                  leaf_weights: np.ndarray, tree_roots: Sequence[int], n_targets: int,
                  aggregate_function: int = 1, post_transform: int = 0,
                  nodes_missing_value_tracks_true: Sequence[int] | None = None,
                  membership_values: np.ndarray | None = None,
                  nodes_hitrates: np.ndarray | None = None) -> np.ndarray:
    """TreeEnsemble-5: interior nodes and leaves in separate arrays; a branch names a node or,
    with its *leafs flag, a leaf. Leaves are numbered after the nodes here."""
    n = len(nodes_featureids)
    n_leaves = len(leaf_weights)
    _check_ids("tree_roots", tree_roots, np.zeros(len(tree_roots), bool), n, n_leaves)
    _check_ids("nodes_truenodeids", nodes_truenodeids, np.asarray(nodes_trueleafs) != 0, n,
               n_leaves)
    _check_ids("nodes_falsenodeids", nodes_falsenodeids, np.asarray(nodes_falseleafs) != 0, n,
               n_leaves)
    modes = np.asarray(nodes_modes, np.int64)
    leaf = np.full(n_leaves, LEAF)
    true_next = np.where(np.asarray(nodes_trueleafs) != 0, n, 0) + np.asarray(nodes_truenodeids)
    false_next = np.where(np.asarray(nodes_falseleafs) != 0, n, 0) + \
        np.asarray(nodes_falsenodeids)
    members = {}
    if membership_values is not None:  # each MEMBER node's set, NaN-terminated, in node order
        sets = np.split(membership_values, np.flatnonzero(np.isnan(membership_values)) + 1)
        members = {int(node): s[~np.isnan(s)] for node, s in zip(np.flatnonzero(modes == MEMBER),
                                                                  sets)}
    trees = _Trees(np.concatenate([modes, leaf]),
                   np.concatenate([nodes_featureids, np.zeros(n_leaves, np.int64)]),
                   np.concatenate([np.asarray(nodes_splits, np.float64), np.zeros(n_leaves)]),
                   np.concatenate([true_next, np.zeros(n_leaves, np.int64)]),
                   np.concatenate([false_next, np.zeros(n_leaves, np.int64)]),
                   np.concatenate([_missing(nodes_missing_value_tracks_true, n),
                                   np.zeros(n_leaves, bool)]), members)
    roots = np.asarray(tree_roots)
    # A one-leaf tree: its root's both branches are the same leaf.
    lone = (np.asarray(nodes_trueleafs)[roots] != 0) & (np.asarray(nodes_falseleafs)[roots] != 0) \
        & (np.asarray(nodes_truenodeids)[roots] == np.asarray(nodes_falsenodeids)[roots])
    roots = np.where(lone, n + np.asarray(nodes_truenodeids)[roots], roots)
    weights = _LeafWeights(n + n_leaves, n + np.arange(n_leaves), leaf_targetids, leaf_weights)
    scores = _aggregate(trees.walk(x, roots), weights, n_targets,
                        _named("aggregate_function", aggregate_function, _AGGREGATE_NAMES))
    return _post_transform(scores, _named("post_transform", post_transform,
                                          _POST_TRANSFORM_NAMES)).astype(x.dtype)


def _named(attr: str, code: int, names: tuple[str, ...]) -> str:
    # numpy-style indexing would read -1 as the last name
    if not 0 <= code < len(names):
        raise ValueError(f"{attr} {code} is not one of 0..{len(names) - 1} ({', '.join(names)})")
    return names[code]


def _check_ids(name: str, ids: Sequence[int], to_leaf: np.ndarray, n: int,
               n_leaves: int) -> None:
    """Each id names a node, or with its flag a leaf, that exists (numpy would read a negative
    one from the end: -1 went round to the last node, and the walk round a loop)."""
    ids = np.asarray(ids, np.int64)
    if ids.shape != to_leaf.shape:
        raise ValueError(f"{name} has {ids.size} ids for {to_leaf.size} flags")
    bad = np.flatnonzero((ids < 0) | (ids >= np.where(to_leaf, n_leaves, n)))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{name}[{k}] is {ids[k]}: there are {n_leaves if to_leaf[k] else n} "
                         f"{'leaves' if to_leaf[k] else 'nodes'}")


def _classic_trees(x: np.ndarray, nodes_treeids: Sequence[int], nodes_nodeids: Sequence[int],
                   nodes_modes: Sequence[str], nodes_featureids: Sequence[int],
                   nodes_values: np.ndarray, nodes_truenodeids: Sequence[int],
                   nodes_falsenodeids: Sequence[int], tracks_true: Sequence[int] | None,
                   leaf_treeids: Sequence[int], leaf_nodeids: Sequence[int],
                   leaf_ids: Sequence[int], leaf_weights: np.ndarray
                   ) -> tuple[np.ndarray, _LeafWeights]:
    """TreeEnsembleClassifier/Regressor's layout (one node array, ids local to each tree, a
    leaf's weights listed apart): the leaf each sample reaches per tree, and the leaves'
    (target or class, weight) entries."""
    index = {(t, i): k for k, (t, i) in enumerate(zip(nodes_treeids, nodes_nodeids))}
    tree_ids = sorted(set(nodes_treeids))
    roots = np.array([min(k for k, t in enumerate(nodes_treeids) if t == tree)
                      for tree in tree_ids])
    n = len(nodes_nodeids)
    rule = np.array([_RULE_OF_NAME[m] for m in nodes_modes])
    true_next = np.array([index.get((t, i), 0) for t, i in zip(nodes_treeids, nodes_truenodeids)])
    false_next = np.array([index.get((t, i), 0)
                           for t, i in zip(nodes_treeids, nodes_falsenodeids)])
    trees = _Trees(rule, np.asarray(nodes_featureids), np.asarray(nodes_values, np.float64),
                   true_next, false_next, _missing(tracks_true, n))
    owner = np.array([index[t, i] for t, i in zip(leaf_treeids, leaf_nodeids)], np.int64)
    x = x.reshape(len(x), -1) if x.ndim != 1 else x.reshape(1, -1)
    return trees.walk(x, roots), _LeafWeights(n, owner, leaf_ids, leaf_weights)


def _first(*values: object) -> object:
    return next((v for v in values if v is not None), None)


@one_output(ML + "TreeEnsembleRegressor")
def tree_ensemble_regressor(x: np.ndarray, *, nodes_treeids: Sequence[int],
                            nodes_nodeids: Sequence[int], nodes_modes: Sequence[str],
                            nodes_featureids: Sequence[int], nodes_truenodeids: Sequence[int],
                            nodes_falsenodeids: Sequence[int], target_treeids: Sequence[int],
                            target_nodeids: Sequence[int], target_ids: Sequence[int],
                            n_targets: int, nodes_values: Sequence[float] | None = None,
                            nodes_values_as_tensor: np.ndarray | None = None,
                            target_weights: Sequence[float] | None = None,
                            target_weights_as_tensor: np.ndarray | None = None,
                            base_values: Sequence[float] | None = None,
                            base_values_as_tensor: np.ndarray | None = None,
                            aggregate_function: str = "SUM", post_transform: str = "NONE",
                            nodes_missing_value_tracks_true: Sequence[int] | None = None,
                            nodes_hitrates: Sequence[float] | None = None,
                            nodes_hitrates_as_tensor: np.ndarray | None = None) -> np.ndarray:
    leaves, weights = _classic_trees(
        x, nodes_treeids, nodes_nodeids, nodes_modes, nodes_featureids,
        _first(nodes_values, nodes_values_as_tensor), nodes_truenodeids, nodes_falsenodeids,
        nodes_missing_value_tracks_true, target_treeids, target_nodeids, target_ids,
        _first(target_weights, target_weights_as_tensor))
    scores = _aggregate(leaves, weights, n_targets, aggregate_function,
                        _first(base_values, base_values_as_tensor))
    out_type = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    return _post_transform(scores, post_transform).astype(out_type)


@kernel(ML + "TreeEnsembleClassifier")
def tree_ensemble_classifier(x: np.ndarray, *, nodes_treeids: Sequence[int],
                             nodes_nodeids: Sequence[int], nodes_modes: Sequence[str],
                             nodes_featureids: Sequence[int], nodes_truenodeids: Sequence[int],
                             nodes_falsenodeids: Sequence[int], class_treeids: Sequence[int],
                             class_nodeids: Sequence[int], class_ids: Sequence[int],
                             classlabels_int64s: Sequence[int] | None = None,
                             classlabels_strings: Sequence[str] | None = None,
                             nodes_values: Sequence[float] | None = None,
                             nodes_values_as_tensor: np.ndarray | None = None,
                             class_weights: Sequence[float] | None = None,
                             class_weights_as_tensor: np.ndarray | None = None,
                             base_values: Sequence[float] | None = None,
                             base_values_as_tensor: np.ndarray | None = None,
                             post_transform: str = "NONE",
                             nodes_missing_value_tracks_true: Sequence[int] | None = None,
                             nodes_hitrates: Sequence[float] | None = None,
                             nodes_hitrates_as_tensor: np.ndarray | None = None
                             ) -> tuple[np.ndarray, np.ndarray]:
    labels = classlabels_int64s if classlabels_int64s is not None else classlabels_strings
    leaves, weights = _classic_trees(
        x, nodes_treeids, nodes_nodeids, nodes_modes, nodes_featureids,
        _first(nodes_values, nodes_values_as_tensor), nodes_truenodeids, nodes_falsenodeids,
        nodes_missing_value_tracks_true, class_treeids, class_nodeids, class_ids,
        _first(class_weights, class_weights_as_tensor))
    scores = _aggregate(leaves, weights, len(labels), "SUM",
                        _first(base_values, base_values_as_tensor), zero_unreached=False)
    if len(set(class_ids)) > 1:
        winner = np.argmax(scores, axis=1)
    else:
        # Binary: one score column, the other class's derived from it as onnxruntime does: 1 - p
        # when no weight is negative (p is then a probability), else -p.
        p = scores[:, 0]
        positive = bool(np.all(np.asarray(_first(class_weights, class_weights_as_tensor)) >= 0))
        scores = np.stack([1 - p if positive else -p, p], axis=1)
        winner = (p > (0.5 if positive else 0)).astype(np.int64)
    string_labels = classlabels_strings is not None
    chosen = np.asarray(labels, dtype=object if string_labels else np.int64)[
        np.minimum(winner, len(labels) - 1)]
    return chosen, _post_transform(scores, post_transform).astype(np.float32)
