"""`python -m asmcfg`."""

from asmcfg.cli import main

main()
