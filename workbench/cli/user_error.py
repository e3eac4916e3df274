"""The one way a subcommand reports the user's bad input."""


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2, never a traceback."""
