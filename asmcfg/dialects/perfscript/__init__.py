"""`perf script` samples of a recorded Java run, put on the compilations of the same run's LogCompilation log.

`samples` reads `perf script -F comm,pid,tid,time,period,event,ip,sym,dso --ns` text; `codecache` reads what the
log says of the code cache (each `<nmethod>`'s address range and creation stamp, the JVM's pid and clock);
`attribute` bins each sample of the JVM to the compilation that held its address when it ran, and counts every
other sample by category and thread; `heat` turns a compilation's samples into its measured heat.
"""
