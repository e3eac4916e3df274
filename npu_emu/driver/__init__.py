"""The driver floor (seed 003's driver adaptation layer): device memory as a real byte array and
the host's pinned memory."""
