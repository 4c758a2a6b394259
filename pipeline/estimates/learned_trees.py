"""LightGBM ensembles as flat NumPy arrays, evaluated by a Numba function.

Why hand-written: the ``learned`` scheme learned inside a replay
(``simulate --history simulated``) computes each arrival's estimate in the
Numba event loop, and LightGBM cannot be called from a Numba loop (its
``predict`` is a Python/ctypes call that needs the GIL and a NumPy matrix).
The boosters are still trained by LightGBM (pipeline/estimates/learned.py,
walk-forward on the log); only their evaluation is repeated here, from
``booster.dump_model()``, with LightGBM's own decision rules (its
src/io/tree.h, ``NumericalDecision`` and ``CategoricalDecision``):

- numerical split: a NaN value counts as 0.0 unless the node's missing type
  is NaN; a missing value (NaN for missing type NaN, |x| <= 1e-35 for missing
  type Zero) goes to the default side; otherwise left when x <= threshold;
- categorical split: NaN or a negative value goes right; else left when
  int(x) is one of the node's categories.

tests/test_learned_trees.py checks :func:`predict_rows` against
``booster.predict`` to 1e-9 on real traces' feature rows.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit

ZERO = 1e-35  # LightGBM's kZeroThreshold
MISSING = {"None": 0, "Zero": 1, "NaN": 2}


class Forest:
    """Several ensembles (one per retraining period) in flat arrays.

    Node arrays (all trees of all models): ``feat`` split feature, ``thr``
    threshold (numerical), ``cat`` 1 for a categorical split, ``miss``
    missing type (0 None, 1 Zero, 2 NaN), ``dleft`` default left, ``left`` /
    ``right`` children (>= 0 a node, < 0 the leaf ~child), ``clo`` / ``chi``
    the node's categories in ``cats[clo:chi]``. ``leaf`` leaf values. Trees:
    ``root`` (a node, or ~leaf for a one-leaf tree). Models: trees
    ``mlo[m]:mhi[m]`` and ``init[m]`` added to their sum."""

    def __init__(self):
        self.feat, self.thr, self.cat, self.miss, self.dleft = [], [], [], [], []
        self.left, self.right, self.clo, self.chi = [], [], [], []
        self.cats, self.leaf, self.root, self.mlo, self.mhi, self.init = [], [], [], [], [], []

    def add(self, booster, init: float) -> int:
        """Append one booster (its whole ensemble); returns its model index."""
        self.mlo.append(len(self.root))
        for tree in booster.dump_model()["tree_info"]:
            self.root.append(self._node(tree["tree_structure"]))
        self.mhi.append(len(self.root))
        self.init.append(float(init))
        return len(self.mlo) - 1

    def _node(self, d: dict) -> int:
        if "leaf_value" in d and "split_feature" not in d:
            self.leaf.append(float(d["leaf_value"]))
            return ~(len(self.leaf) - 1)
        k = len(self.feat)
        self.feat.append(int(d["split_feature"]))
        self.miss.append(MISSING[d.get("missing_type", "None")])
        self.dleft.append(bool(d.get("default_left", False)))
        if d["decision_type"] == "==":
            members = sorted(int(c) for c in str(d["threshold"]).split("||"))
            self.cat.append(1)
            self.thr.append(0.0)
            self.clo.append(len(self.cats))
            self.cats.extend(members)
            self.chi.append(len(self.cats))
        elif d["decision_type"] == "<=":
            self.cat.append(0)
            self.thr.append(float(d["threshold"]))
            self.clo.append(0)
            self.chi.append(0)
        else:
            raise ValueError(f"LightGBM decision type {d['decision_type']!r}: not supported")
        self.left.append(0)
        self.right.append(0)
        self.left[k] = self._node(d["left_child"])
        self.right[k] = self._node(d["right_child"])
        return k

    def arrays(self) -> tuple:
        """The tuple :func:`predict_one` takes after the feature row and model."""
        i64 = lambda v: np.asarray(v, np.int64)  # noqa: E731
        return (i64(self.feat), np.asarray(self.thr, np.float64), i64(self.cat), i64(self.miss),
                np.asarray(self.dleft, np.bool_), i64(self.left), i64(self.right), i64(self.clo), i64(self.chi),
                i64(self.cats), np.asarray(self.leaf, np.float64), i64(self.root), i64(self.mlo), i64(self.mhi),
                np.asarray(self.init, np.float64))


@jit(inline=True)
def _go_left(x, k, thr, cat, miss, dleft, clo, chi, cats):
    if cat[k] == 1:
        if np.isnan(x) or x < 0.0 or x >= 2147483648.0:  # LightGBM: NaN or negative -> right (int32 cast)
            return False
        v = np.int64(x)
        for c in range(clo[k], chi[k]):
            if cats[c] == v:
                return True
        return False
    m = miss[k]
    if np.isnan(x) and m != 2:
        x = 0.0
    if (m == 1 and -ZERO <= x <= ZERO) or (m == 2 and np.isnan(x)):
        return dleft[k]
    return x <= thr[k]


@jit
def predict_one(row, m, feat, thr, cat, miss, dleft, left, right, clo, chi, cats, leaf, root, mlo, mhi, init):
    """Model m's raw output (sum of its trees' leaves, in tree order) plus its init."""
    s = 0.0
    for tr in range(mlo[m], mhi[m]):
        k = root[tr]
        while k >= 0:
            if _go_left(row[feat[k]], k, thr, cat, miss, dleft, clo, chi, cats):
                k = left[k]
            else:
                k = right[k]
        s += leaf[~k]
    return s + init[m]


@jit
def predict_rows(x, m, feat, thr, cat, miss, dleft, left, right, clo, chi, cats, leaf, root, mlo, mhi, init):
    """predict_one for each row of x (float64[n, features], NaN missing)."""
    out = np.empty(x.shape[0], np.float64)
    for i in range(x.shape[0]):
        out[i] = predict_one(x[i], m, feat, thr, cat, miss, dleft, left, right, clo, chi, cats, leaf, root,
                             mlo, mhi, init)
    return out
