"""`gewb exec`'s tests build and check their models with the v1 runtime tests' helpers."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
