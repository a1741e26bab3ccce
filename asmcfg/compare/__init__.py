"""`asmcfg diff`: compare two analysed compilations at the level of loops, checks, traps, calls and polls.

`facts` computes the few facts the analysis record does not carry yet, `items` reduces a compilation to what is
compared, `match` pairs the two sides by debug info, `gate` checks `--fail-on` conditions, `report` writes the
JSON and the tables and `dot` the side-by-side graph. A stage of its own after `render` (whose DOT labels and
folding the side-by-side graph reuses) and before `run`, where `run/diff.py` carries out the command.
"""
