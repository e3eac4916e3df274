"""`gewb serve`: the workbench app in the browsers of a class (classroom.py), each tab its own
sandboxed process (tab_process.py) reporting where it is for the teacher's view (tab_status.py)."""
