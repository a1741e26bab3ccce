"""asmcfg: control-flow graphs from HotSpot JIT assembly, tagged with what HotSpot means."""

__version__ = "0.1.0"
