"""``--json-schema FILE``: a headless run whose final answer is JSON matching a schema.

The schema goes into the system prompt; the answer is parsed (a fenced ```json block is
accepted) and validated with the jsonschema library. One that does not match is sent
back once with the validator's words; a second miss ends the run with its own exit code,
so a script can tell "the model answered" from "the answer has the shape I need".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neocode_tui.errors import NeoCodeError

EXIT_SCHEMA = 4
MAX_SCHEMA_FILE = 256 * 1024
_FENCE = re.compile(r"\A\s*```(?:json)?\s*\n(.*?)\n\s*```\s*\Z", re.DOTALL)


class SchemaError(NeoCodeError):
    """The schema file is missing, not JSON, or not a JSON Schema (bad usage)."""

    exit_code = 2


@dataclass(frozen=True)
class Checked:
    value: Any
    problem: str
    """Why the answer does not match; "" when it does."""


class AnswerSchema:
    def __init__(self, path: Path) -> None:
        from jsonschema import SchemaError as InvalidSchema  # type: ignore[import-untyped]
        from jsonschema.validators import validator_for  # type: ignore[import-untyped]

        try:
            raw = path.read_bytes()[: MAX_SCHEMA_FILE + 1]
            if len(raw) > MAX_SCHEMA_FILE:
                raise SchemaError(f"--json-schema {path}: larger than {MAX_SCHEMA_FILE // 1024} KiB")
            self.schema = json.loads(raw.decode("utf-8"))
        except OSError as exc:
            raise SchemaError(f"--json-schema {path}: cannot be read ({exc.strerror or exc})") from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise SchemaError(f"--json-schema {path}: not JSON ({exc})") from None
        kind = validator_for(self.schema)
        try:
            kind.check_schema(self.schema)
        except InvalidSchema as exc:
            raise SchemaError(f"--json-schema {path}: not a valid JSON Schema ({exc.message})") from None
        self.validator = kind(self.schema)

    @property
    def instructions(self) -> str:
        return (
            "Your final answer must be a single JSON value, with no other text, that matches "
            f"this JSON Schema:\n{json.dumps(self.schema, indent=1)}"
        )

    def check(self, answer: str) -> Checked:
        fenced = _FENCE.match(answer)
        text = fenced.group(1) if fenced else answer
        try:
            value = json.loads(text)
        except ValueError as exc:
            return Checked(None, f"the answer is not JSON ({exc})")
        errors = sorted(self.validator.iter_errors(value), key=lambda error: list(error.path))
        if errors:
            where = "/".join(str(part) for part in errors[0].path) or "the answer"
            return Checked(value, f"{where}: {errors[0].message}")
        return Checked(value, "")

    @staticmethod
    def again(problem: str) -> str:
        return (f"Your final answer does not match the JSON Schema: {problem}. Answer again "
                "with only the JSON value, matching the schema.")
