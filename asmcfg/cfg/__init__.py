"""The control-flow graph of one method: blocks and edges."""
