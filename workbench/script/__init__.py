"""Record and replay: .gwb scripts are command lines (plus `say` and `pause` for lessons).

    replay        a script headless, its transcript (`gewb run`)
    lesson        the lessons in sample_models/lessons
    consent       the host programs a script may run, with the user's consent
    script_lines  a script's text (UTF-8, or one line naming the bad byte) and command lines

Nothing is imported here: the command language imports consent, and replay imports the
command language.
"""
