"""``--json-schema FILE``: a headless run whose final answer is JSON matching a schema.

The schema goes into the system prompt; the answer is parsed (a fenced ```json block is
accepted) and validated with the jsonschema library. One that does not match is sent
back once with the validator's words; a second miss ends the run with its own exit code,
so a script can tell "the model answered" from "the answer has the shape I need".

A schema is data from a file, so checking an answer against it reaches nothing else and
ends in bounded time: its references are followed only inside it (a registry that knows no
URI but the schema's own and the specifications' meta-schemas: no URL is fetched, no file
read), and the validation runs in a worker process (``python -m`` this module) that is
killed at ``CHECK_SECONDS`` or when the run is stopped: a ``pattern`` that backtracks
(``^(a+)+$``) cannot hold the run, and no Python thread could be stopped in it.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neocode_tui.errors import NeoCodeError

EXIT_SCHEMA = 4
MAX_SCHEMA_FILE = 256 * 1024
CHECK_SECONDS = 5.0
"""How long checking one answer may take: a matching answer takes milliseconds."""
_FENCE = re.compile(r"\A\s*```(?:json)?\s*\n(.*?)\n\s*```\s*\Z", re.DOTALL)


class SchemaError(NeoCodeError):
    """The schema file is missing, not JSON, not a JSON Schema, or refers outside itself
    (bad usage)."""

    exit_code = 2


@dataclass(frozen=True)
class Checked:
    value: Any
    problem: str
    """Why the answer does not match; "" when it does."""
    final: bool = False
    """The answer could not be checked (too slow, or the run was stopped): asking the
    model again would not help."""


class AnswerSchema:
    def __init__(self, path: Path) -> None:
        from jsonschema import SchemaError as InvalidSchema  # type: ignore[import-untyped]
        from jsonschema.validators import validator_for  # type: ignore[import-untyped]

        self.path = path
        try:
            raw = path.read_bytes()[: MAX_SCHEMA_FILE + 1]
            if len(raw) > MAX_SCHEMA_FILE:
                raise SchemaError(f"--json-schema {path}: larger than {MAX_SCHEMA_FILE // 1024} KiB")
            self.schema = json.loads(raw.decode("utf-8"))
        except OSError as exc:
            raise SchemaError(f"--json-schema {path}: cannot be read ({exc.strerror or exc})") from None
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise SchemaError(f"--json-schema {path}: not JSON ({exc})") from None
        try:
            validator_for(self.schema).check_schema(self.schema)
        except InvalidSchema as exc:
            raise SchemaError(f"--json-schema {path}: not a valid JSON Schema ({exc.message})") from None
        self._stopped = False
        self._worker: asyncio.subprocess.Process | None = None

    @property
    def instructions(self) -> str:
        return (
            "Your final answer must be a single JSON value, with no other text, that matches "
            f"this JSON Schema:\n{json.dumps(self.schema, indent=1)}"
        )

    async def check(self, answer: str) -> Checked:
        """The answer against the schema, in the worker; raises ``SchemaError`` when the
        schema refers to something outside it."""
        fenced = _FENCE.match(answer)
        text = fenced.group(1) if fenced else answer
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return Checked(None, f"the answer is not JSON ({exc})")
        verdict = await self._in_worker({"schema": self.schema, "value": value})
        if "outside" in verdict:
            raise SchemaError(
                f"--json-schema {self.path}: it refers to {verdict['outside']!r}, which is not in "
                "it; references are followed only inside the schema (no URL is fetched, no file read)"
            )
        if "unchecked" in verdict:
            return Checked(value, verdict["unchecked"], final=True)
        return Checked(value, verdict["problem"])

    def stop(self) -> None:
        """The run is being stopped: the check in progress ends now, and none starts."""
        self._stopped = True
        if self._worker is not None and self._worker.returncode is None:
            self._worker.kill()

    async def _in_worker(self, job: dict[str, Any]) -> dict[str, str]:
        if self._stopped:
            return {"unchecked": "not checked: the run was stopped"}
        # -P and cwd "/": no module of the workspace can stand in for one the worker imports.
        self._worker = worker = await asyncio.create_subprocess_exec(
            sys.executable, "-P", "-m", __name__, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, cwd="/",
        )
        if self._stopped:  # stopped while the worker was starting
            worker.kill()
        try:
            out, _ = await asyncio.wait_for(worker.communicate(json.dumps(job).encode()), CHECK_SECONDS)
        except TimeoutError:
            return {"unchecked": f"checking it took longer than {CHECK_SECONDS:g} s (does a "
                                 "pattern of the schema backtrack?)"}
        finally:
            if worker.returncode is None:
                worker.kill()
                await worker.wait()
            self._worker = None
        if self._stopped:
            return {"unchecked": "not checked: the run was stopped"}
        try:
            verdict: dict[str, str] = json.loads(out)
        except ValueError:
            return {"unchecked": f"the check failed (exit status {worker.returncode})"}
        return verdict

    @staticmethod
    def again(problem: str) -> str:
        return (f"Your final answer does not match the JSON Schema: {problem}. Answer again "
                "with only the JSON value, matching the schema.")


def verdict(schema: Any, value: Any) -> dict[str, str]:
    """The first problem of ``value`` against ``schema`` ("" when it matches), or the
    reference that leads outside the schema: the worker's whole job."""
    from jsonschema.validators import validator_for
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    # An empty registry retrieves nothing: it knows the schema and, added by jsonschema,
    # the meta-schemas it ships.
    validator = validator_for(schema)(schema, registry=Registry())
    try:
        errors = sorted(validator.iter_errors(value), key=lambda error: [str(part) for part in error.path])
    except Unresolvable as exc:
        return {"outside": _unreachable(exc)}
    if not errors:
        return {"problem": ""}
    where = "/".join(str(part) for part in errors[0].path) or "the answer"
    return {"problem": f"{where}: {errors[0].message}"}


def _unreachable(exc: BaseException) -> str:
    """The URI the registry was asked for (a reference resolved against its base), else
    the reference as written."""
    from referencing.exceptions import NoSuchResource

    written = str(getattr(exc, "ref", exc))
    link: BaseException | None = exc
    for _ in range(10):
        if link is None:
            break
        if isinstance(link, NoSuchResource):
            return str(link.ref)
        link = link.__cause__ or link.__context__
    return written


def _work() -> None:
    """Read one job on stdin, write its verdict on stdout; the CPU limit ends a worker whose
    parent was killed before it could kill the worker."""
    import resource

    seconds = int(CHECK_SECONDS) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    job = json.loads(sys.stdin.buffer.read())
    sys.stdout.write(json.dumps(verdict(job["schema"], job["value"])))


if __name__ == "__main__":
    _work()
