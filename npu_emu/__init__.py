"""The emulated NPU and CANN Runtime. Knows nothing of graphs (see DESIGN.md, layers)."""
