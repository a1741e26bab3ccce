"""`asmcfg serve` of a record folder: "what if…" on the page of a compilation whose replay data the folder keeps.
A form under the page sends a line of JVM options (or asks for the sweep) to `/whatif/<the page's address>`; the
server replays that compilation, and nothing else, with those options, each checked against the `-XX:` pattern
and passed as an argv word (never through a shell), one what-if at a time; the answer is the diff page, or the
sweep's table. The sign-in cookie every request carries protects it as it protects the rest."""

from __future__ import annotations

import html
import io
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from asmcfg.errors import AsmcfgError, InputError
from asmcfg.run.pipeline import Selector
from asmcfg.serve import pages
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from asmcfg.whatif.source import Source

LONGEST = 1000
"""The longest option line a request may send."""
MOST = 16
"""The most options one what-if takes."""
_BODY = re.compile(r"<body[^>]*>")
_FORM = ('<form method="get" action="{action}" style="position:fixed;right:8px;bottom:8px;z-index:1000;'
         'background:#fff;border:1px solid #888;padding:6px;font:13px sans-serif">what if… '
         '<input name="options" size="42" maxlength="1000" placeholder="-XX:-UseSuperWord -XX:LoopUnrollLimit=1"> '
         '<button type="submit">replay</button> or <a href="{action}?sweep=1">sweep the C2 switches</a></form>')


class WhatIfs:
    """The what-ifs of one record folder's JVM."""

    def __init__(self, folder: str, pid: int, compile_ids: list[int | None], java: str | None = None,
                 timeout: float = 60.0) -> None:
        from asmcfg.whatif.source import kept_ids

        self.folder, self.pid, self.java, self.timeout = folder, pid, java, timeout
        kept = kept_ids(folder, pid)
        self._ids = [n if n in kept else None for n in compile_ids]
        self._busy = threading.Lock()

    def offers(self, n: int) -> bool:
        """True when row `n`'s compilation can be replayed (the folder keeps its replay data)."""
        return 0 <= n < len(self._ids) and self._ids[n] is not None

    def form(self, page: pages.Page, path: str) -> pages.Page:
        """The compilation's page with the what-if form under it (and a policy that lets it send to this server)."""
        text = page.body.decode("utf-8")
        found = _BODY.search(text)
        if found is None:
            return page
        form = _FORM.format(action=html.escape("/whatif" + path))
        body = text[:found.end()] + form + text[found.end():]
        return pages.Page(body.encode("utf-8"), page.policy.replace("form-action 'none'", "form-action 'self'"))

    def page(self, n: int, line: str, sweep: bool) -> pages.Page:
        """Row `n` replayed with the options of `line` (or swept): the diff page, the sweep's table, or a page
        saying in one line why not."""
        title = "asmcfg serve: what if…"
        if not self.offers(n):
            return pages.problem_page(title, "the record folder keeps no replay data of this compilation")
        if not self._busy.acquire(blocking=False):
            return pages.problem_page(title, "another what-if is running: ask again when it has ended")
        try:
            return self._page(n, line, sweep)
        except AsmcfgError as error:
            return pages.problem_page(title, str(error))
        finally:
            self._busy.release()

    def stop(self) -> None:
        """End the replays still running (the server stops)."""
        from asmcfg.whatif.runner import stop_all

        stop_all()

    def _page(self, n: int, line: str, sweep: bool) -> pages.Page:
        from asmcfg.whatif import options, source

        chosen = self._checked(line, options.check)
        if not chosen and not sweep:
            raise InputError("give JVM options such as -XX:-UseSuperWord, or ask for the sweep")
        found = source.of_folder(self.folder, Selector(compile_id=self._ids[n]), self.pid, self.java, None)
        if sweep:
            return self._swept(found)
        from asmcfg.whatif import report
        from asmcfg.whatif.mode import whatif

        outcome = whatif(found, chosen, self.timeout)
        return pages.diff_page(report.page_text(outcome, chosen))

    def _checked(self, line: str, check: Callable[[str], str]) -> tuple[str, ...]:
        if len(line) > LONGEST:
            raise InputError(f"the option line is longer than {LONGEST} characters")
        words = line.split()
        if len(words) > MOST:
            raise InputError(f"more than {MOST} options")
        return tuple(check(word) for word in words)

    def _swept(self, found: Source) -> pages.Page:
        from rich.console import Console

        from asmcfg.whatif.sweepreport import swept, write_table

        result = swept(found, self.timeout)
        console = Console(file=io.StringIO(), width=240, record=True, color_system=None)
        write_table(result, console)
        text = html.escape(visible(console.export_text()))
        body = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>asmcfg serve: sweep</title>'
                f'</head><body><pre style="font:12px monospace">{text}</pre></body></html>\n')
        return pages.Page(body.encode("utf-8"), pages.NO_SCRIPT)
