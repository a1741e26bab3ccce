"""What C2 compiled against, as JSON fields of a method read with its LogCompilation log: the branch profile it
read, tied to the graph (`branch_profile`), and the inlining tree with the samples under each call
(`inlining_tree`). Both are absent from the method object without a log."""

from __future__ import annotations

from typing import Any

from asmcfg.facts import branch_profile, inlining_tree
from asmcfg.model import Analysis


def method_fields(result: Analysis) -> dict[str, Any]:
    """`branch_profile` and `inlining_tree`, or nothing when the method has no log."""
    if result.cfg.method.log_inlines is None:
        return {}
    sites = branch_profile.branch_sites(result) or []
    return {"branch_profile": [site.as_dict() for site in sites], "inlining_tree": inlining_tree.as_json(result)}
