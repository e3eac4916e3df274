"""Read-only views of a parked run: what the faces show."""
