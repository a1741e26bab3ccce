"""cutlog.py LOG OUT CLASS: keep a LogCompilation log's frame and the records of CLASS's compilations."""
import re
import sys

src, out, cls = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(src, encoding="utf-8", errors="replace").read().split("\n")
ids = {m.group(1) for l in lines if f"method='{cls} " in l and l.startswith(("<nmethod", "<task_queued"))
       for m in [re.search(r"compile_id='(\d+)'", l)] if m}
keep, depth_tag, i = [], None, 0
in_tty = False
while i < len(lines):
    l = lines[i]
    m = re.search(r"compile_id='(\d+)'", l)
    if l.startswith(("<tty>", "</tty>", "<tty_done", "<compilation_log", "</compilation_log", "<hotspot_log",
                     "</hotspot_log", "<start_compile_thread")) or not in_tty and (i < 60 or l.startswith("</")):
        in_tty = in_tty or l.startswith("<tty>")
        keep.append(l)
    elif m and m.group(1) in ids:
        tag = l[1:].split()[0]
        keep.append(l)
        if not l.endswith("/>"):
            i += 1
            while i < len(lines) and not lines[i].startswith(f"</{tag}>"):
                keep.append(lines[i])
                i += 1
            keep.append(lines[i])
    i += 1
open(out, "w").write("\n".join(keep))
