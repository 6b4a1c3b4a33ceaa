"""A tolerant, incremental reader for a tool call's JSON arguments as they stream.

The screen previews arguments while the model is still writing them (the path of a
``write_file`` and its growing line count, the command of a ``bash``), and ACP editors get
them as they grow; so it lives outside ``tui/`` and imports nothing of Textual. Re-decoding the whole
text at every delta would make a long ``write_file`` cost quadratic time, so this reader keeps
its state between fragments and looks at each character once. It understands the top-level
object only: string fields are decoded as they grow; any other value (number, nested object)
is kept as raw text and decoded once it is complete. Text that is not a JSON object stops the
reader without an exception: the preview shows what was understood so far.
"""

from __future__ import annotations

import json
import re
from typing import Any

_STRING_RUN = re.compile(r'[^"\\]+')
_RAW_RUN = re.compile(r'[^"\\{}\[\],]+')
_SPACE = re.compile(r"\s*")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}

# Reader states.
_START, _KEY_OR_END, _KEY, _COLON, _VALUE, _STRING, _RAW, _AFTER_VALUE, _DONE, _BROKEN = range(10)


class GrowingText:
    """Text that arrives in pieces: counts lines and shows its tail without re-joining it all."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.newlines = 0
        self.length = 0
        self._joined: str | None = ""

    def append(self, text: str) -> None:
        if not text:
            return
        self.parts.append(text)
        self.newlines += text.count("\n")
        self.length += len(text)
        self._joined = None

    @property
    def text(self) -> str:
        """The text so far, joined once per change rather than once per fragment."""
        if self._joined is None:
            self._joined = "".join(self.parts)
            self.parts = [self._joined] if self._joined else []
        return self._joined

    @property
    def line_count(self) -> int:
        if not self.parts:
            return 0
        return self.newlines + (not self.parts[-1].endswith("\n"))

    def tail(self, lines: int, max_chars: int = 2_000) -> str:
        """The last ``lines`` lines (at most ``max_chars`` characters), reading back only as far
        as they reach, never the whole text."""
        pieces: list[str] = []
        newlines = 0
        chars = 0
        for part in reversed(self.parts):
            cut = len(part)
            while newlines <= lines:
                cut = part.rfind("\n", 0, cut)
                if cut < 0:
                    break
                newlines += 1
            if newlines > lines:
                pieces.append(part[cut + 1 :])
                break
            pieces.append(part)
            chars += len(part)
            if chars >= max_chars:
                break
        text = "".join(reversed(pieces))[-max_chars:].rstrip("\n")
        return "\n".join(text.split("\n")[-lines:])


class PartialField(GrowingText):
    """One top-level field: its decoded text so far (strings) or raw JSON text (other values)."""

    def __init__(self, is_string: bool) -> None:
        super().__init__()
        self.is_string = is_string
        self.complete = False

    def value(self) -> Any:
        """The decoded value: the string, or the raw text parsed once it is complete."""
        if self.is_string or not self.complete:
            return self.text
        try:
            return json.loads(self.text)
        except json.JSONDecodeError:
            return self.text


class PartialJSON:
    """Feed it fragments in order; read ``fields`` at any moment."""

    def __init__(self) -> None:
        self.fields: dict[str, PartialField] = {}
        self._state = _START
        self._key: list[str] = []
        self._current: PartialField | None = None
        self._escape = ""  # a pending backslash escape, possibly split across fragments
        self._high_surrogate = ""
        self._depth = 0  # nesting inside a raw (non-string) value
        self._raw_in_string = False
        self._raw_escape = False

    @property
    def complete(self) -> bool:
        """True once the top-level object has been closed."""
        return self._state == _DONE

    @property
    def broken(self) -> bool:
        """True when the text stopped being a JSON object; what was read stays readable."""
        return self._state == _BROKEN

    def get(self, key: str) -> PartialField | None:
        return self.fields.get(key)

    def feed(self, text: str) -> None:
        position = 0
        end = len(text)
        while position < end and self._state not in (_DONE, _BROKEN):
            position = self._step(text, position)

    def _step(self, text: str, position: int) -> int:
        """Consume some of ``text`` from ``position`` in the current state; return the new position."""
        state = self._state
        if state in (_STRING, _KEY):
            return self._read_string(text, position)
        if state == _RAW:
            return self._read_raw(text, position)
        position = _SPACE.match(text, position).end()  # type: ignore[union-attr]
        if position >= len(text):
            return position
        char = text[position]
        if state == _START:
            self._state = _KEY_OR_END if char == "{" else _BROKEN
        elif state == _KEY_OR_END:
            if char == '"':
                self._key = []
                self._state = _KEY
            elif char == "}":
                self._state = _DONE
            elif char != ",":
                self._state = _BROKEN
        elif state == _COLON:
            self._state = _VALUE if char == ":" else _BROKEN
        elif state == _VALUE:
            key = "".join(self._key)
            if char == '"':
                self._current = self.fields[key] = PartialField(is_string=True)
                self._state = _STRING
            else:
                self._current = self.fields[key] = PartialField(is_string=False)
                self._depth = 0
                self._state = _RAW
                return position  # the raw reader consumes this character itself
        elif state == _AFTER_VALUE:
            if char == ",":
                self._state = _KEY_OR_END
            elif char == "}":
                self._state = _DONE
            else:
                self._state = _BROKEN
        return position + 1

    def _emit(self, chunk: str) -> None:
        if self._state == _KEY:
            self._key.append(chunk)
        else:
            assert self._current is not None
            self._current.append(chunk)

    def _read_string(self, text: str, position: int) -> int:
        if self._escape:
            return self._read_escape(text, position)
        run = _STRING_RUN.match(text, position)
        if run is not None:
            self._flush_surrogate()
            self._emit(run.group())
            return run.end()
        char = text[position]
        if char == "\\":
            self._escape = "\\"
            return position + 1
        # The closing quote.
        self._flush_surrogate()
        if self._state == _KEY:
            self._state = _COLON
        else:
            assert self._current is not None
            self._current.complete = True
            self._state = _AFTER_VALUE
        return position + 1

    def _read_escape(self, text: str, position: int) -> int:
        if len(self._escape) == 1:
            self._escape += text[position]
            position += 1
        need = 6 if self._escape[1] == "u" else 2
        take = min(need - len(self._escape), len(text) - position)
        self._escape += text[position : position + take]
        position += take
        if len(self._escape) < need:
            return position
        escape, self._escape = self._escape, ""
        if escape[1] != "u":
            self._flush_surrogate()
            self._emit(_ESCAPES.get(escape[1], escape[1]))
            return position
        try:
            code = int(escape[2:], 16)
        except ValueError:
            self._state = _BROKEN
            return position
        if 0xD800 <= code < 0xDC00:
            self._flush_surrogate()
            self._high_surrogate = chr(code)
        elif 0xDC00 <= code < 0xE000 and self._high_surrogate:
            pair = (self._high_surrogate + chr(code)).encode("utf-16", "surrogatepass")
            self._high_surrogate = ""
            self._emit(pair.decode("utf-16"))
        else:
            self._flush_surrogate()
            self._emit(chr(code))
        return position

    def _flush_surrogate(self) -> None:
        """A lone high surrogate cannot be shown: it becomes the replacement character."""
        if self._high_surrogate:
            self._high_surrogate = ""
            self._emit("\ufffd")

    def _read_raw(self, text: str, position: int) -> int:
        """A non-string value: track nesting (and strings inside it) to find where it ends."""
        current = self._current
        assert current is not None
        start = position
        end = len(text)
        while position < end:
            if self._raw_in_string:
                run = _STRING_RUN.match(text, position)
                if run is not None and not self._raw_escape:
                    position = run.end()
                    continue
                char = text[position]
                if self._raw_escape:
                    self._raw_escape = False
                elif char == "\\":
                    self._raw_escape = True
                elif char == '"':
                    self._raw_in_string = False
                position += 1
                continue
            run = _RAW_RUN.match(text, position)
            if run is not None:
                position = run.end()
                continue
            char = text[position]
            if char == '"':
                self._raw_in_string = True
            elif char in "{[":
                self._depth += 1
            elif char in "}]" or char == ",":
                if self._depth == 0:
                    current.append(text[start:position])
                    current.complete = True
                    self._state = _AFTER_VALUE
                    return position  # the comma or brace belongs to the object
                if char != ",":
                    self._depth -= 1
            position += 1
        current.append(text[start:position])
        return position
