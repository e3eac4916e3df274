"""Checkers over what the scheduler did: the deadlock report (the wait-for chain) and the race
detector (happens-before over streams and events). They read scheduler state and trace events only.
"""
