"""`asmcfg whatif`: one recorded compilation replayed by HotSpot as recorded and with changed JVM options, and
what changed, as `asmcfg diff` reports it."""

from __future__ import annotations

import dataclasses
import os
from typing import TextIO

from asmcfg.run import outputs
from asmcfg.whatif import source
from asmcfg.whatif.mode import WhatifOptions


def run(options: WhatifOptions) -> int:
    """Carry out one what-if (or a sweep); the exit status."""
    from asmcfg.whatif import report
    from asmcfg.whatif.mode import whatif

    outputs.check_targets(outputs.named(("--json", options.json), ("--html", options.html)), stdout=False)
    if options.class_path is not None:  # the replay runs in a folder of its own
        options = dataclasses.replace(options, class_path=os.pathsep.join(
            os.path.abspath(entry) for entry in options.class_path.split(os.pathsep)))
    if os.path.isdir(options.input):
        found = source.of_folder(options.input, options.selector, options.pid, options.java, options.class_path)
    else:
        found = source.of_file(options.input, options.java, options.class_path)
    if options.sweep:
        return _sweep(found, options)
    outcome = whatif(found, options.jvm_options, options.timeout)
    report.write_stderr(outcome, options.jvm_options, options.quiet)
    if options.json:
        report.write_json(options.json, outcome, options.jvm_options)
    if options.html:
        report.write_html(options.html, outcome, options.jvm_options)
    return 0


def _sweep(found: source.Source, options: WhatifOptions) -> int:
    """The sweep: the built-in switches this JVM takes, each replayed, ranked; the table and the JSON."""
    from asmcfg.render import indented
    from asmcfg.render.files import write_to
    from asmcfg.render.summary import stderr_console
    from asmcfg.terminal import visible
    from asmcfg.whatif import fidelity
    from asmcfg.whatif.sweepreport import document, swept, write_table

    result = swept(found, options.timeout)
    if not options.quiet:
        write_table(result, stderr_console())
    else:
        stderr_console().print(visible(fidelity.sentence(result.fidelity)), highlight=False, markup=False)
    if options.json:
        text = indented.dumps(document(result)) + "\n"

        def write(out: TextIO) -> None:
            out.write(text)

        write_to(options.json, write)
    return 0
