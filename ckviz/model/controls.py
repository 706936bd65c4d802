"""The terminal control sequences a recording of ckviz can contain, and nothing else.

A .cast is someone else's file: played raw, its output could set the clipboard (OSC 52),
the window title (OSC 0/2), or make the terminal answer (device status, attributes, window
reports: an injection path in some terminals). `ckviz replay` passes only what Textual emits
when it draws ckviz: text; CR, LF, tab, backspace, bell; SGR colours and attributes; cursor
moves; erase; save/restore cursor; keypad modes; the private screen modes (alternate screen,
cursor shown/hidden, line wrap, mouse and focus reports, bracketed paste, synchronized
output); the keyboard protocol's push and pop. Every other sequence is dropped whole and
counted: OSC, DCS, SOS, PM, APC strings, queries, C1 controls, other C0 controls. A sequence
may be split across two events: the filter keeps its state between `feed` calls."""

from __future__ import annotations

import re

ESC = "\x1b"
KEPT_C0 = frozenset("\n\r\t\b\x07")
# CSI finals kept with plain numeric parameters: SGR, cursor position and moves, erase,
# scroll region, save/restore cursor.
PLAIN_FINALS = frozenset("mHfABCDEFGdJKXrsu")
# Private modes (CSI ? N h / l) Textual sets: cursor keys, line wrap, cursor blink and
# visibility, the alternate screen, mouse and focus reports, bracketed paste, sync output.
PRIVATE_MODES = frozenset(
    {1, 7, 12, 25, 47, 1000, 1002, 1003, 1004, 1005, 1006, 1007, 1015, 1016, 1047, 1048, 1049}
    | {2004, 2026, 2048}
)
KEPT_ESC = frozenset("78=>M")  # save/restore cursor, keypad modes, reverse index
STRING_STARTS = frozenset("]PX^_")  # OSC, DCS, SOS, PM, APC: up to ST (or BEL for OSC)
C1_STRING_STARTS = frozenset("\x90\x98\x9d\x9e\x9f")  # the same, as 8-bit controls
C1_CSI, C1_ST = "\x9b", "\x9c"
MAX_CSI = 64  # characters of one CSI sequence; a longer one is no sequence Textual writes
NEEDS_CARE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
CSI_PARAMS = re.compile(r"[0-9;:]*")

GROUND, ESCAPE, CSI, STRING, STRING_ESCAPE = range(5)


class ControlFilter:
    """Text in, the same text with every sequence outside the list above removed."""

    def __init__(self) -> None:
        self.dropped = 0  # sequences (and single controls) removed so far
        self._state = GROUND
        self._pending = ""  # the CSI sequence being read (after ESC [)
        self._eight_bit = False  # the CSI began as C1 (8-bit): dropped whatever it says

    def feed(self, text: str) -> str:
        kept: list[str] = []
        i, n = 0, len(text)
        while i < n:
            if self._state == GROUND:
                found = NEEDS_CARE.search(text, i)
                end = found.start() if found else n
                kept.append(text[i:end])
                if found is None:
                    break
                kept.append(self._control(text[end]))
                i = end + 1
            else:
                kept.append(self._in_sequence(text[i]))
                i += 1
        return "".join(kept)

    def finish(self) -> int:
        """A sequence left open at the end is dropped too; the count of all dropped."""
        if self._state != GROUND:
            self._drop()
        return self.dropped

    def _control(self, char: str) -> str:
        if char in KEPT_C0:
            return char
        if char == ESC:
            self._state = ESCAPE
            return ""
        if "\ud800" <= char <= "\udfff":  # a lone surrogate: no character a terminal can take
            return "\ufffd"
        if char in C1_STRING_STARTS:  # its payload is consumed with it
            self._state = STRING
            return ""
        if char == C1_CSI:
            self._state, self._pending, self._eight_bit = CSI, "", True
            return ""
        self.dropped += 1  # another C0 control, DEL or a C1 control (8-bit CSI, OSC, ...)
        return ""

    def _in_sequence(self, char: str) -> str:
        if self._state == ESCAPE:
            return self._after_escape(char)
        if self._state == CSI:
            return self._csi(char)
        if self._state == STRING:  # consumed, never kept
            if char in ("\x07", C1_ST):
                self._drop()
            elif char == ESC:
                self._state = STRING_ESCAPE
            return ""
        self._state = STRING  # STRING_ESCAPE
        if char == "\\":
            self._drop()
        return ""

    def _after_escape(self, char: str) -> str:
        if char == ESC:
            self.dropped += 1
            return ""
        if char == "[":
            self._state, self._pending, self._eight_bit = CSI, "", False
            return ""
        if char in STRING_STARTS:
            self._state = STRING
            return ""
        self._state = GROUND
        if char in KEPT_ESC:
            return ESC + char
        self.dropped += 1
        return ""

    def _csi(self, char: str) -> str:
        if char == ESC:  # a new sequence starts: the open one is dropped
            self._drop()
            self._state = ESCAPE
            return ""
        if "\x40" <= char <= "\x7e":
            self._state = GROUND
            if not self._eight_bit and kept_csi(self._pending, char):
                return f"{ESC}[{self._pending}{char}"
            self.dropped += 1
            return ""
        if not "\x20" <= char <= "\x3f" or len(self._pending) >= MAX_CSI:
            self._drop()  # not a CSI sequence after all (or an endless one)
            return ""
        self._pending += char
        return ""

    def _drop(self) -> None:
        self._state, self._pending = GROUND, ""
        self.dropped += 1


def kept_csi(params: str, final: str) -> bool:
    """Whether `ESC [ params final` is one of the sequences a ckviz recording contains."""
    if final in "hl" and params.startswith("?"):
        modes = params[1:].split(";")
        return all(m.isdigit() and int(m) in PRIVATE_MODES for m in modes)
    if final == "u" and params[:1] in ("<", ">"):  # keyboard protocol push / pop (no query)
        return CSI_PARAMS.fullmatch(params[1:]) is not None
    return final in PLAIN_FINALS and CSI_PARAMS.fullmatch(params) is not None
