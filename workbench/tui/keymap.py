"""The key map, in one place: each key names an action and, for a debugger key, the command
line it runs (the command table is the one action registry; keys only map onto it). Ids let a
user remap keys (Textual's keymap)."""
from __future__ import annotations

from textual.binding import Binding

from workbench.commands.session_commands import PANES  # `show PANE` names them too

# action name -> the command line it runs (F10 and F11 depend on the stepping unit: app.py)
COMMAND_KEYS = {"continue": "continue", "finish": "finish", "reverse": "reverse-step",
                "next": "next"}

# F11 steps one unit finer: stage > pass > node > event, task > sqe > event
FINER = {"stage": "pass", "pass": "node", "node": "event", "task": "sqe", "sqe": "event",
         "event": "event"}



def coarser(unit: str, phase: str) -> str:
    """One unit coarser than ``unit``: the inverse of FINER (event goes back to an SQE while
    the device executes or a host program runs, to a node before)."""
    if unit == "event":
        return "sqe" if phase in ("execute", "program") else "node"
    return next((c for c, f in FINER.items() if f == unit and c != unit), unit)


PANE_TITLES = {"graph": "Graph", "passes": "Passes", "device": "Device", "memory": "Memory",
               "timeline": "Timeline", "source": "Source", "log": "Log"}

_PANE_GROUP = Binding.Group("Pane", compact=True)
PANE_KEYS_LABEL = f"1-{len(PANES)}"   # how the key bar shows the pane keys

BINDINGS = [
    Binding("f5", "debug('continue')", "Cont", key_display="F5", id="continue"),
    Binding("f10", "step", "Step", key_display="F10", id="step"),
    Binding("f11", "step_finer", "In", key_display="F11", id="step-finer"),
    Binding("shift+f11", "debug('finish')", "Fin", key_display="⇧F11", id="finish"),
    Binding("u", "step_coarser", "Out", show=False, id="step-coarser"),
    Binding("f9", "toggle_breakpoint", "Brk", key_display="F9", id="toggle-breakpoint"),
    Binding("f8", "debug('reverse')", "Back", key_display="F8", id="reverse-step"),
    Binding("ctrl+c", "interrupt", "Stop", key_display="^C", id="interrupt", priority=True),
    # priority: seen before the key goes to the focused widget, so what is typed right after
    # it reaches the command line (an ordinary binding is seen on the way back up, after
    # the keys behind it were already handed to the old focus); not while an input has focus
    Binding("colon", "focus_command", "Cmd", key_display=":", id="command-line",
            priority=True),
    Binding("q", "quit_app", "Quit", id="quit"),
    Binding("L", "lessons", "Lessons", id="lessons"),
    *[Binding(str(i), f"pane('{name}')", PANE_TITLES[name], id=f"pane-{name}",
              group=_PANE_GROUP) for i, name in enumerate(PANES, 1)],
    Binding("question_mark", "help", "Help", id="help", show=False),
    Binding("y", "copy", "Copy", id="copy", show=False),
    # / searches the focused pane; n and N go on while a search is on (before gdb's n).
    # priority, as `:`: the text typed right after it reaches the command line
    Binding("slash", "search", "Search", show=False, id="search", priority=True),
    Binding("n", "search_next(1)", "Next match", show=False, id="search-next"),
    Binding("N", "search_next(-1)", "Previous match", show=False, id="search-previous"),
    # gdb / pudb letters: only when no input has the focus (an input takes printable keys)
    Binding("s", "step", "Step", show=False, id="letter-step"),
    Binding("n", "debug('next')", "Next", show=False, id="letter-next"),
    Binding("c", "debug('continue')", "Continue", show=False, id="letter-continue"),
    Binding("b", "toggle_breakpoint", "Break", show=False, id="letter-break"),
    # a lesson waits at `pause` for the reader: space goes on (Enter stays the focused row's,
    # except on the lesson panel: lesson_panel.py)
    Binding("space", "lesson_next", "Go on", key_display="␣", id="lesson-next",
            priority=True),
]

# what the help screen lists (key as shown, what it does)
KEY_TABLE = (
    ("F5 / c", "continue: run to the next breakpoint, watch or the end"),
    ("F10 / s", "step one unit of the stepping unit (status bar: step ...)"),
    ("F11", "step into: one unit finer, once (stage > pass > node > event; task > sqe > "
            "event); F10 then steps as before"),
    ("u", "F10 steps one unit coarser (a click on the status bar's unit does too)"),
    ("shift+F11", "finish: run to the end of the pass, stage, execution or phase"),
    ("n", "next: step over finer units (same graph, same stream)"),
    ("F9 / b", "toggle a breakpoint on the selected pass, node or SQE"),
    ("F8", "reverse-step: back one unit (re-executes to it)"),
    ("ctrl+c", "interrupt a running command: the target parks, the app stays (none runs: "
               "copy the mouse's selection)"),
    ("1 .. 7", "show a pane (narrow) / maximise it; again or Esc restores"),
    (":", "the command line (the REPL's commands; Tab completes, Up/Down history)"),
    ("Esc", "leave the command line; end a search; close an open diff; restore a maximised "
            "pane"),
    ("L", "the lessons (`gewb lessons`): Enter plays one, with its narration beside the panes"),
    ("space", "a lesson paused at `pause`: go on (Enter too, on the lesson panel)"),
    ("Enter", "on a node: its anchors and peers (v draws it); on a pass: its IR diff"),
    ("arrows", "move in a pane (device: left/right a stream, up/down an SQE; timeline: up/down "
               "a stream's lane; source: what the script submitted, its line marked)"),
    ("/ · n · N", "find in the focused pane (rows, an open diff, stream columns, lanes, source "
                  "code, log) "
                  "or in the help, the match marked; next, previous match until Esc (then n "
                  "is gdb's next again); the graph pane's / filters its rows"),
    ("h · + - [ ] 0", "hide unchanged passes · timeline zoom, scroll, fit"),
    ("mouse", "click a key of the key bar, a pane's name, a pane's title (maximises it), a "
              "stream's column or timeline lane (selects the stream); double-click a row: as "
              "Enter; drag over text: select it (y copies)"),
    ("v", "graph pane: draw the selected node's neighbourhood, two hops, as a DAG under the "
          "table, following the cursor; again: put it away (edges say out→in anchor; ┆ "
          "control; boxes coloured by stream)"),
    ("y", "copy the text selected with the mouse (drag over it), else the row under the "
          "cursor, to the clipboard (OSC 52: through ssh and gewb serve too)"),
    (":log save FILE", "write the log to FILE"),
    ("ctrl+p", "command palette: every command, pane and lesson"),
    ("?", "this key table and every command"),
    ("q", "quit (asks while a command runs)"),
)
