"""The workbench: debugger engine, command language, REPL, TUI, record/replay and the CLI."""
