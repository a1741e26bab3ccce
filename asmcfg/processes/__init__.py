"""Processes for parallel work, started one way for every layer that uses them.

The readers share a pass over a large file with a second process (`dialects`), the whole-log runs analyse on every
core (`run`), `serve` analyses in the background and the folder export draws on every core: all of them start their
processes here. So the package depends on nothing but the errors and the records' pickling (`model`), and sits in
a stage of its own under the readers (`tests/test_layers.py`).

- `start`: how a process is started. Forked where this process runs no other thread (a fork shares the memory
  made so far, costs no import and needs nothing pickled); from the `forkserver` where other threads run (a forked
  copy of a threaded process may wait forever on a lock one of its threads held), whose server, started by
  fork and exec, runs none. Every process started here is stopped by its parent alone and dies with it.
- `child`: one function in a process of its own, what it sends coming back in order through a pipe.
- `pool`: a function over a stream of batches on several processes, results in input order.
"""
