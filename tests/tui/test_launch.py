"""`gewb` alone is the app on the bundled sample, and says what to do without a terminal;
`gewb tui` opens a target or a lesson."""
from __future__ import annotations

import os
import sys

from workbench.cli import main
from workbench.cli.model_files import SAMPLE
from workbench.cli import tui as launch
from workbench.tui.app import WorkbenchApp

from tui_testing import ROOT


class _Tty:
    def __init__(self, real):
        self.real = real

    def isatty(self):
        return True

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_without_a_terminal_the_main_job_says_so_in_one_line(capsys):
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "needs a terminal" in lines[0] and "gewb repl" in lines[0]


def test_with_a_terminal_the_main_job_opens_the_app_on_the_bundled_sample(monkeypatch):
    opened = []
    monkeypatch.setattr(sys, "stdin", _Tty(sys.stdin))
    monkeypatch.setattr(sys, "stdout", _Tty(sys.stdout))
    monkeypatch.setattr(WorkbenchApp, "run", lambda self: opened.append(self.opening))
    assert main([]) == 0
    assert opened[0].target == str(SAMPLE) and opened[0].lesson is None


def test_a_gwb_target_is_a_lesson_played_from_its_own_directory():
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    opening = launch.opening_for(str(lesson), ROOT)
    assert opening.lesson == lesson and opening.base_dir == lesson.parent
    assert launch.opening_for("30_hunting_sync_bugs.gwb", ROOT / "docs").lesson == lesson
    assert launch.opening_for("light:resnet50", ROOT).target == "light:resnet50"


def test_a_lesson_s_name_as_gewb_lessons_lists_it_plays_the_lesson(tmp_path):
    """`gewb lessons` lists 30_hunting_sync_bugs; `gewb tui 30_hunting_sync_bugs` opened it as
    a target: "error: no such target: 30_hunting_sync_bugs". A file of that name is still the
    target."""
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    opening = launch.opening_for("30_hunting_sync_bugs", ROOT / "docs")
    assert opening.lesson == lesson and opening.base_dir == lesson.parent
    (tmp_path / "30_hunting_sync_bugs").write_text("")
    assert launch.opening_for("30_hunting_sync_bugs", tmp_path).target == "30_hunting_sync_bugs"


def test_a_lesson_that_is_not_there_is_one_line():
    import pytest
    from workbench.cli.user_error import UserError
    with pytest.raises(UserError, match=r"no lesson 'nope.gwb' \(`gewb lessons` lists them\)"):
        launch.opening_for("nope.gwb", ROOT)


def test_a_served_tab_carries_no_history_file_nor_networkx_until_it_draws(tmp_path):
    """What each of a class's tabs holds in memory: no prompt_toolkit history (nor a history
    file of the students' lines on the server), and networkx only once `v` draws a graph."""
    import subprocess
    code = ("import asyncio, sys\n"
            "from pathlib import Path\n"
            "from workbench.script.access import Access\n"
            "from workbench.tui.app import Opening, WorkbenchApp\n"
            "lesson = Path('sample_models/lessons/01_ir_nodes_and_anchors.gwb').resolve()\n"
            "access = Access.served_tab(lesson, frozenset())\n"
            "async def main():\n"
            "    app = WorkbenchApp(Opening(lesson.parent, lesson=lesson, access=access))\n"
            "    async with app.run_test(size=(120, 40)) as pilot:\n"
            "        await pilot.pause()\n"
            "        print(app.query_one('#command')._history is None,\n"
            "              any(m.split('.')[0] in ('networkx', 'prompt_toolkit')\n"
            "                  for m in sys.modules))\n"
            "asyncio.run(main())\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)})
    assert done.stdout.split()[-2:] == ["True", "False"], done.stdout + done.stderr
    assert not list(tmp_path.iterdir())   # no history file written
