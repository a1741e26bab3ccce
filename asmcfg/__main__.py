"""`python -m asmcfg`."""

from asmcfg.launch import main

main()
