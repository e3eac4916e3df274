"""The Textual workbench: one more face over the DebugSession, the debugger engine and its outcomes.
``app.py`` coordinates; each pane is a widget of its own module; ``keymap.py`` holds the keys;
``app.tcss`` the layout. Nothing here compiles or runs a device: panes read the engine's views."""
