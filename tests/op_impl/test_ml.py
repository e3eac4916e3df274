"""The ai.onnx.ml kernels against onnxruntime (the tree ensembles: onnx's reference evaluator runs
only post_transform NONE, and reads a one-leaf tree and an unreached target otherwise) and onnx's
ReferenceEvaluator."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from npu_emu.op_impl import get_kernel
from npu_emu.op_impl.registry import UnknownKernelError

RNG = np.random.default_rng(0)


def ml_model(op: str, x: np.ndarray, n_outputs: int = 1, **attrs):
    attrs = {k: numpy_helper.from_array(v, k) if isinstance(v, np.ndarray) else v
             for k, v in attrs.items()}
    outputs = [f"y{i}" for i in range(n_outputs)]
    node = helper.make_node(op, ["x"], outputs, domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph([node], op, [helper.make_tensor_value_info(
        "x", helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)],
        [helper.make_empty_tensor_value_info(o) for o in outputs])
    return helper.make_model(graph, ir_version=10, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 5 if op ==
                                                         "TreeEnsemble" else 3)])


def onnxruntime(op: str, x: np.ndarray, n_outputs: int = 1, **attrs) -> list:
    model = ml_model(op, x, n_outputs, **attrs)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})


def reference(op: str, x: np.ndarray, n_outputs: int = 1, **attrs) -> list:
    return ReferenceEvaluator(ml_model(op, x, n_outputs, **attrs)).run(None, {"x": x})


def kernel(op: str, x: np.ndarray, **attrs) -> tuple:
    return get_kernel(f"ai.onnx.ml::{op}")(x, **attrs)


# Two trees over two features; tree 1 sends NaN down its true branch.
TREES = dict(
    nodes_treeids=[0, 0, 0, 0, 0, 1, 1, 1],
    nodes_nodeids=[0, 1, 2, 3, 4, 0, 1, 2],
    nodes_modes=["BRANCH_LEQ", "BRANCH_GT", "LEAF", "LEAF", "LEAF", "BRANCH_LT", "LEAF", "LEAF"],
    nodes_featureids=[0, 1, 0, 0, 0, 1, 0, 0],
    nodes_values=[0.5, -0.2, 0, 0, 0, 0.1, 0, 0],
    nodes_truenodeids=[1, 2, 0, 0, 0, 1, 0, 0],
    nodes_falsenodeids=[4, 3, 0, 0, 0, 2, 0, 0],
    nodes_missing_value_tracks_true=[0, 0, 0, 0, 0, 1, 0, 0],
)
X = np.concatenate([RNG.standard_normal((7, 2)), [[np.nan, np.nan]]]).astype(np.float32)


@pytest.mark.parametrize("aggregate", ["SUM", "AVERAGE", "MIN", "MAX"])
def test_tree_ensemble_regressor(aggregate: str) -> None:
    attrs = dict(TREES, n_targets=2, aggregate_function=aggregate, base_values=[0.5, -1.0],
                 target_treeids=[0, 0, 0, 0, 1, 1], target_nodeids=[2, 3, 4, 4, 1, 2],
                 target_ids=[0, 1, 0, 1, 1, 0], target_weights=[1.5, -2.0, 3.0, 0.25, 4.0, -1.0])
    (want,) = onnxruntime("TreeEnsembleRegressor", X, **attrs)
    (got,) = kernel("TreeEnsembleRegressor", X, **attrs)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.dtype == want.dtype


@pytest.mark.parametrize("post", ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"])
@pytest.mark.parametrize("labels", [{"classlabels_int64s": [7, 8, 9]},
                                    {"classlabels_strings": ["a", "b", "c"]}])
def test_tree_ensemble_classifier(labels: dict, post: str) -> None:
    attrs = dict(TREES, **labels, post_transform=post, base_values=[0.1, -0.2, 0.3],
                 class_treeids=[0, 0, 0, 1, 1], class_nodeids=[2, 3, 4, 1, 2],
                 class_ids=[0, 1, 2, 2, 0], class_weights=[0.5, 1.5, 0.2, 0.7, 0.1])
    want_labels, want_scores = onnxruntime("TreeEnsembleClassifier", X, 2, **attrs)
    got_labels, got_scores = kernel("TreeEnsembleClassifier", X, **attrs)
    np.testing.assert_allclose(got_scores, want_scores, rtol=1e-5, atol=1e-7)
    assert list(got_labels) == list(want_labels)


@pytest.mark.parametrize("post", ["NONE", "LOGISTIC"])
def test_binary_tree_ensemble_classifier(post: str) -> None:
    attrs = dict(TREES, classlabels_int64s=[0, 1], post_transform=post,
                 class_treeids=[0, 0, 0, 1, 1], class_nodeids=[2, 3, 4, 1, 2],
                 class_ids=[0, 0, 0, 0, 0], class_weights=[0.9, -0.4, 0.2, 0.3, -0.6])
    want_labels, want_scores = onnxruntime("TreeEnsembleClassifier", X, 2, **attrs)
    got_labels, got_scores = kernel("TreeEnsembleClassifier", X, **attrs)
    np.testing.assert_allclose(got_scores, want_scores, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(got_labels, want_labels)


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
def test_tree_ensemble_5_with_a_lone_leaf_tree(aggregate: int) -> None:
    # Tree 0: x0 <= 0.2 ? (x1 < 0 ? leaf 0 : leaf 1) : leaf 2. Tree 1: always leaf 3.
    attrs = dict(n_targets=2, aggregate_function=aggregate, tree_roots=[0, 2],
                 nodes_modes=np.array([0, 1, 0], np.uint8), nodes_featureids=[0, 1, 0],
                 nodes_splits=np.array([0.2, 0.0, 0.0]), nodes_truenodeids=[1, 0, 3],
                 nodes_trueleafs=[0, 1, 1], nodes_falsenodeids=[2, 1, 3],
                 nodes_falseleafs=[1, 1, 1], leaf_targetids=[0, 1, 1, 0],
                 leaf_weights=np.array([1.0, 2.0, -3.0, 0.5]))
    x = RNG.standard_normal((6, 2))
    (want,) = onnxruntime("TreeEnsemble", x, **attrs)  # the reference reads a lone leaf apart
    (got,) = kernel("TreeEnsemble", x, **attrs)
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("change, fault", [
    (dict(nodes_falsenodeids=[-1, 1, 3], nodes_falseleafs=[0, 1, 1]),
     "nodes_falsenodeids[0] is -1: there are 3 nodes"),
    (dict(nodes_truenodeids=[1, 4, 3]), "nodes_truenodeids[1] is 4: there are 4 leaves"),
    (dict(tree_roots=[0, 3]), "tree_roots[1] is 3: there are 3 nodes"),
    # in range, but node 1's false branch leads back to node 0: a loop, not a tree
    (dict(nodes_falsenodeids=[2, 0, 3], nodes_falseleafs=[1, 0, 1]),
     "the trees' branches loop"),
])
def test_tree_ensemble_5_ids_that_name_no_node_or_loop_are_refused(change: dict,
                                                                   fault: str) -> None:
    """A negative id had been read from the end by numpy, and a loop of branches walked for
    ever: a device run of a mutated node-suite model hung."""
    attrs = dict(n_targets=2, aggregate_function=1, tree_roots=[0, 2],
                 nodes_modes=np.array([0, 1, 0], np.uint8), nodes_featureids=[0, 1, 0],
                 nodes_splits=np.array([0.2, 0.0, 0.0]), nodes_truenodeids=[1, 0, 3],
                 nodes_trueleafs=[0, 1, 1], nodes_falsenodeids=[2, 1, 3],
                 nodes_falseleafs=[1, 1, 1], leaf_targetids=[0, 1, 1, 0],
                 leaf_weights=np.array([1.0, 2.0, -3.0, 0.5]))
    x = np.array([[0.0, 1.0]])   # x0 <= 0.2, x1 >= 0: node 0's true branch, node 1's false
    with pytest.raises(ValueError, match=fault.replace("[", r"\[").replace("]", r"\]")):
        kernel("TreeEnsemble", x, **{**attrs, **change})


def test_label_encoder_floats_to_strings() -> None:
    attrs = dict(keys_floats=[0.5, 1.5], values_strings=["half", "one and a half"],
                 default_string="none")
    x = np.array([[1.5, 0.5], [2.0, 0.5]], np.float32)
    (want,) = reference("LabelEncoder", x, **attrs)
    (got,) = kernel("LabelEncoder", x, **attrs)
    assert got.shape == want.shape and list(got.ravel()) == list(want.ravel())


def test_ml_ops_are_not_default_domain_ops() -> None:
    with pytest.raises(UnknownKernelError):
        get_kernel("Binarizer")
    (y,) = get_kernel("ai.onnx.ml::Binarizer")(np.array([-1.0, 2.0]), threshold=0.5)
    np.testing.assert_array_equal(y, [0.0, 1.0])
