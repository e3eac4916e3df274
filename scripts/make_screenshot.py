"""Regenerate the README's screenshot of the workbench app: the bundled sample, stepped into
GE's logical stream assignment so the graph pane shows stream ids changing (old→new), at
200x50, saved by the app itself (an SVG).

    python scripts/make_screenshot.py [OUT.svg]     (default: docs/workbench.svg)
"""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZE = (200, 50)
LINES = ("break pass ConstantFoldingPass", "continue", "delete all",
         "run-to pass NodeStreamUpdatePass", "step")


async def shoot(out: Path) -> None:
    from workbench.tui.app import Opening, WorkbenchApp
    from workbench.tui.headless import settle
    app = WorkbenchApp(Opening(ROOT, target="sample_models/tiny_cnn.onnx"), history_file=None,
                       deterministic=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for line in LINES:
            app.run_line(line)
            await settle(pilot)
        app.save_screenshot(out.name, str(out.parent))


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "workbench.svg"
    out.parent.mkdir(parents=True, exist_ok=True)
    asyncio.run(shoot(out.resolve()))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
