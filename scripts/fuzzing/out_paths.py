"""Where users point gewb's outputs (--output, --trace, --dot, -o, --dump): a plain name, a
folder that does not exist, a place nothing can be written (/proc), the working directory
itself, nothing at all, a NUL. Each target adds the suffix its option expects; relative paths
land in the case's scratch directory."""
PATHS = (None, "out.file", "no/such/dir/out.file", "/proc/gewb-fuzz.file", ".", "", "a\0b")
