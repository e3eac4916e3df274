"""The OM tests build their models with the task tests' hand-made build annotations."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler" / "task"))
