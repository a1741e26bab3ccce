"""One run of asmcfg: options, the serial pipeline, the parallel engine, progress."""
