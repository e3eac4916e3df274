"""Scripts: .gwb files are command lines (plus `say` and `pause` for lessons).

    player        the one player every face plays a script with (gewb run, source, the app)
    lesson        the lessons in sample_models/lessons
    consent       the host programs a script may run, with the user's consent
    script_lines  a script's text (UTF-8, or one line naming the bad byte) and command lines

Nothing here imports the command language (workbench/commands): the faces hand the player how to
run a line. Headless replay into a transcript is workbench/commands/replay.py.
"""
