"""Text bound for a terminal with its control characters made visible, as `less` and `git` show them.

A log is untrusted input: a method name holding `ESC ] 0 ; … BEL` would set the window title, OSC 52 would
write the clipboard, `ESC [ 8 m` would hide what follows, and a bidi override would reorder what is shown.
Every line asmcfg writes to stdout or stderr for a person passes the text it took from its inputs through
`visible`, which spells each such character as an escape (`\\x1b`, `\\x9b`, `\\u202e`), as it does the characters
that draw as nothing (`\\u200b`, a tag character), and leaves every other character alone, so ordinary names print
exactly as before.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that reorder the text around them (a name holding U+202E can read as another): the marks ALM,
LRM and RLM, the embeddings, overrides and isolates. The terminal, the report page and DOT all show them escaped."""
INVISIBLE = frozenset(
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u200b\u200c\u200d\u2060\u2061\u2062"
    "\u2063\u2064\u206a\u206b\u206c\u206d\u206e\u206f\u3164\ufeff\uffa0\ufff9\ufffa\ufffb"
    + "".join(map(chr, range(0xFE00, 0xFE10))) + "".join(map(chr, range(0x1D173, 0x1D17B)))
    + "".join(map(chr, range(0xE0000, 0xE0080))) + "".join(map(chr, range(0xE0100, 0xE01F0))))
"""Characters a terminal or a page draws as nothing, so that two different names look alike: zero-width spaces,
joiners and non-joiners, the word joiner and invisible operators, the soft hyphen, the Hangul and Mongolian fillers
and separators, the byte order mark, the variation selectors and the tag characters (U+E0000-U+E007F)."""
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f" + "".join(sorted(BIDI_CONTROLS | INVISIBLE)) + "]")
"""What a terminal acts on, reorders or draws as nothing rather than shows: the C0 controls (tab and newline
included: in a name they are spoofing, never layout), DEL, the C1 controls (`\\x9b` is an 8-bit CSI to some
terminals), the bidi controls and the invisible characters."""


def visible(text: str) -> str:
    """`text` with each control character spelled as an escape (`\\x1b`, `\\u202e`); other text unchanged."""
    if (text.isascii() and text.isprintable()) or _HIDDEN.search(text) is None:  # the first test is the quicker
        return text
    return _HIDDEN.sub(_spelled, text)


def _spelled(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
