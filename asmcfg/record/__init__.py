"""`asmcfg record`: run a Java program with the flags that make its JVMs print their compiled code into a log,
under Linux `perf` when it may record, and leave all of it in one record folder (docs/record.md)."""
