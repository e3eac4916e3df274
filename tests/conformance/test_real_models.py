"""scripts/real_models.py as CI runs it: every model of the set, on every path, gives
onnxruntime's numbers. Slow, and only where the wheels are cached (the cache is outside the tree;
`python scripts/real_models.py` fills it)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import real_models  # noqa: E402

CACHED = {m.name for m in real_models.MODELS
          if (real_models.DEFAULT_CACHE / "models" / m.name / Path(m.member).name).is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("model", real_models.MODELS, ids=lambda m: m.name)
def test_a_real_model_matches_onnxruntime_on_every_path(model):
    if model.name not in CACHED:
        pytest.skip(f"{model.wheel} is not in {real_models.DEFAULT_CACHE}")
    row = real_models.check(model, real_models.DEFAULT_CACHE, real_models.PATHS)
    assert not row.skipped and row.passed, real_models.table([row])


def test_without_the_registry_each_model_is_skipped_in_one_line(tmp_path, monkeypatch):
    # No configuration, no local wheels, and an index nothing listens on.
    for name, value in {"PIP_CONFIG_FILE": "/dev/null", "PIP_FIND_LINKS": "",
                        "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0",
                        "PIP_DEFAULT_TIMEOUT": "2"}.items():
        monkeypatch.setenv(name, value)
    row = real_models.check(real_models.MODELS[4], tmp_path, ("v2",))
    assert row.skipped.startswith("pip download magika==1.0.3 failed: ")
    assert "\n" not in row.skipped and not row.results
