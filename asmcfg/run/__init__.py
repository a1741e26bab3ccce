"""One run of asmcfg: options, the serial pipeline, the parallel engine, progress."""

YOUNG_COLLECTION = 10_000
"""Container allocations between collections of the youngest generation (Python's default is 700), set by the
launcher for every run and by the parallel engine for its own. A run makes most of its objects as it starts
(modules, classes, functions), all of which live until it ends, then millions of short-lived records, hardly any
in reference cycles: at the default, one compilation's open collected about 50 times for nothing (17-24 ms, now
3 collections), and a parallel run spent 3-5% more CPU, with no other peak."""
