"""The runtime's core objects (seed 003 §1.3): device, context, stream, event, notify, label,
kernel tasks, programs."""
