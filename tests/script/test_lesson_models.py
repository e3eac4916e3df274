"""scripts/make_lesson_models.py writes the lesson models byte for byte the same every time, and
the committed files are what it writes."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("make_lesson_models",
                                                  ROOT / "scripts" / "make_lesson_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_runs_write_the_same_bytes():
    script = _script()
    assert script.model_bytes() == script.model_bytes()


def test_the_committed_models_are_what_the_script_writes():
    for name, data in _script().model_bytes().items():
        path = ROOT / "sample_models" / name
        assert path.is_file(), f"{name} is not committed"
        assert path.read_bytes() == data, f"{name} differs: run scripts/make_lesson_models.py"


def test_check_mode_agrees(capsys):
    assert _script().main(["--check"]) == 0
