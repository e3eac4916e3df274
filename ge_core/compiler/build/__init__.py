"""Build: from an optimised graph to a model the device can run (GE's ModelBuilder).

logical streams -> memory -> sync events -> tasks -> stream split, as model_builder.cc orders it
(ge_facts §2). The stages talk through node attributes named in ``annotations``.
"""
