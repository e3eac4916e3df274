"""GE (Graph Engine): graph IR, passes, compile pipeline, build, OM and runtime."""
