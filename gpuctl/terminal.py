"""Text for a terminal: what users and clusters wrote, with its control characters shown.

A description, an event message or a log line may hold a terminal's escape sequences (ESC ]0;
sets the window title, ESC [2J clears the screen, ESC [31m colours), a carriage return that
overwrites the line, or a right-to-left override that reorders it. `shown` writes each such
character as its escape (`\\x1b`, `\\r`, `\\u202e`), so the reader sees what is there and the
terminal does nothing. The CLI's table and describe printers pass every value through it.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, and the line separators and bidirectional formatting
# characters that move or reorder text on a terminal.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_BUT_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str, *, multiline: bool = False) -> str:
    """`text` with every control character escaped; `multiline` keeps its line breaks."""
    pattern = _CONTROL_BUT_NEWLINE if multiline else _CONTROL
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)
