"""`asmcfg diff`: compare two analysed compilations at the level of loops, checks, traps, calls and polls.

`facts` computes the few facts the analysis record does not carry yet, `items` reduces a compilation to what is
compared, `match` pairs the two sides by debug info, `gate` checks `--fail-on` conditions, `report` writes the
JSON and the tables, `dot` the side-by-side graph and `run` carries out the command.
"""
