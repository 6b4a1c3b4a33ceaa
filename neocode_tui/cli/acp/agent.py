"""``neocode acp``: the agent behind an editor, over the Agent Client Protocol on stdio.

Zed, JetBrains and Neovim plugins and clients such as Toad start ``neocode acp`` and speak
JSON-RPC on its stdin and stdout. Each ACP session is one ``AgentSession`` in the folder
the client names; its events become ``session/update`` notifications and its approvals
``session/request_permission`` requests. stdout carries protocol messages only: anything
else written to it goes to stderr, with the logs.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import (
    AuthenticateResponse,
    InitializeRequest,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    run_agent,
)
from acp.helpers import update_current_mode
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CloseSessionResponse,
    DeleteSessionRequest,
    EmbeddedResourceContentBlock,
    HttpMcpServer,
    ListSessionsResponse,
    McpServerStdio,
    PermissionOption,
    RequestPermissionResponse,
    ResourceContentBlock,
    ResumeSessionResponse,
    SessionInfo,
    SessionMode,
    SessionModeState,
    TextContentBlock,
    TextResourceContents,
    ToolCallUpdate,
    Usage,
)
from pydantic import ValidationError

from neocode_tui.agent import (
    ApprovalDecision,
    ApprovalRequested,
    PlanDecision,
    PlanProposed,
    Verdict,
    WorkspaceTooWide,
    refuse_too_wide,
)
from neocode_tui.agent.commands import COMMANDS, parse_command
from neocode_tui.agent.mcp import (
    CLIENT,
    Configs,
    HttpServer,
    ServerEntry,
    StdioServer,
    describe,
    load_configs,
)
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.agent.store import delete_session, list_sessions
from neocode_tui.cli.acp.buffers import EditorBuffers, offers_buffers
from neocode_tui.cli.acp.commands import commands_update, run_built_in
from neocode_tui.cli.acp.config_options import (
    MODE_NAMES,
    BadOption,
    config_options,
    options_update,
    sentence,
    set_option,
)
from neocode_tui.cli.acp.elicitation import ask_editor
from neocode_tui.cli.acp.handshake import AUTH_METHODS, initialize_answer
from neocode_tui.cli.acp.images import BadImage, has_images, prompt_images
from neocode_tui.cli.acp.outbox import Outbox
from neocode_tui.cli.acp.questions import ask_editor as ask_questions
from neocode_tui.cli.acp.updates import UpdateTranslator, usage_update
from neocode_tui.cli.acp.wire import JsonRpcLines
from neocode_tui.cli.options import load_from_args
from neocode_tui.deferred import resume_collections
from neocode_tui.errors import NeoCodeError, NoModel, SessionBusy, SessionNotFound, SettingsError, WorkInProgress
from neocode_tui.events import Usage as CoreUsage
from neocode_tui.vocabulary import APPROVAL_MODES, MODE_DESCRIPTIONS, ApprovalMode

log = logging.getLogger("neocode.acp")

VERDICTS: dict[str, Verdict] = {"allow": "yes", "allow-always": "session", "reject": "no"}
"""Permission option ids to NeoCode's approval verdicts."""
PLAN_OPTIONS = [
    PermissionOption(option_id="auto-edit", name="Yes, carry it out (auto-edit)", kind="allow_always"),
    PermissionOption(option_id="ask", name="Yes, carry it out asking before each change", kind="allow_once"),
    PermissionOption(option_id="plan", name="No, keep planning", kind="reject_once"),
]
"""How a plan handed over in plan mode is answered: the option id is the mode that follows."""


async def serve(args: argparse.Namespace, lines: JsonRpcLines, greeted: dict[str, Any] | None) -> None:
    """The agent on ``lines`` until input ends or SIGTERM; ``greeted``: the params of the
    ``initialize`` already answered (``handshake``), None when the SDK is to answer it."""
    capabilities = InitializeRequest.model_validate(greeted).client_capabilities if greeted else None
    agent = NeoCodeAgent(args, capabilities)
    lines.answer_here("session/delete", agent.delete_session)  # the SDK has its schema, no route
    resume_collections()  # paused since the process started: what lives as long as it is built
    # The SDK routes only the methods an agent has; its Agent protocol lists them all.
    serving = asyncio.create_task(run_agent(agent, lines, use_unstable_protocol=True))  # type: ignore[arg-type]
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, serving.cancel)
    try:
        await serving
    except asyncio.CancelledError:
        pass  # SIGTERM: close the sessions below, then exit
    finally:
        await agent.aclose()


@dataclass
class _Session:
    id: str
    """The ACP session id: the saved NeoCode session's id, so ``session/load`` finds it."""
    core: AgentSession
    outbox: Outbox
    updates: UpdateTranslator
    quiet: bool = False
    """Its events are not sent (a resumed history, which the editor already shows)."""


class NeoCodeAgent:
    """The ACP agent: its methods are the protocol's requests, by the SDK's names."""

    def __init__(self, args: argparse.Namespace,
                 client_capabilities: ClientCapabilities | None = None) -> None:
        self.args = args
        self.client: Client | None = None
        self.client_capabilities = client_capabilities
        """What the editor offers (its buffers), as its ``initialize`` said."""
        self.sessions: dict[str, _Session] = {}

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
        **_: Any,
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        return InitializeResponse.model_validate(initialize_answer(protocol_version))

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        """``api-key`` or ``login``: whether a key is there now (in the environment the
        editor starts neocode in, or saved by ``neocode login``); there is nothing to sign
        in to here."""
        if method_id not in {method["id"] for method in AUTH_METHODS}:
            raise _error(RequestError.invalid_params,
                         f"no authentication method {method_id!r}: api-key reads the key from the "
                         "environment, login from what neocode login saved")
        try:
            settings = load_from_args(self.args, Path.cwd()).settings
        except SettingsError as exc:
            raise _error(RequestError.invalid_params, str(exc)) from None
        if settings.fell_back_offline:
            raise _error(RequestError.auth_required, str(NoModel(" where the editor starts neocode")))
        return AuthenticateResponse()

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
                          ) -> NewSessionResponse:
        session = self._open(_workspace(cwd), None, mcp_servers or [])
        self.sessions[session.id] = session
        # Queued now, sent once this response has gone out (the editor knows the id by then).
        session.outbox.put(commands_update(session.core))
        return NewSessionResponse(session_id=session.id, modes=_modes(session.core.approval),
                                  config_options=list(config_options(session.core)))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **_: Any) -> LoadSessionResponse:
        """The saved session, its history replayed as ``session/update`` notifications."""
        session = await self._reopen(cwd, session_id, mcp_servers or [], replay=True)
        return LoadSessionResponse(modes=_modes(session.core.approval),
                                   config_options=list(config_options(session.core)))

    async def resume_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                             **_: Any) -> ResumeSessionResponse:
        """The saved session, to go on with, its history not sent again (the editor has it)."""
        session = await self._reopen(cwd, session_id, mcp_servers or [], replay=False)
        return ResumeSessionResponse(modes=_modes(session.core.approval),
                                     config_options=list(config_options(session.core)))

    async def close_session(self, session_id: str, **_: Any) -> CloseSessionResponse:
        """Stop what the session runs and let it go; its file stays for a later load."""
        session = self.sessions.pop(session_id, None)
        if session is None:
            raise _error(RequestError.resource_not_found, f"no open session {session_id!r}")
        await self._close(session)
        return CloseSessionResponse()

    async def delete_session(self, params: dict[str, Any]) -> dict[str, Any]:
        """Remove the saved session (closed first when it is open here); later loads and
        listings no longer find it. One that is not there is deleted already: that succeeds,
        as ACP asks; one another process has open is refused."""
        try:
            session_id = DeleteSessionRequest.model_validate(params).session_id
        except ValidationError:
            raise _error(RequestError.invalid_params, "session/delete needs a sessionId, a string") from None
        if (session := self.sessions.pop(session_id, None)) is not None:
            await self._close(session)
        try:
            await asyncio.to_thread(delete_session, session_id)
        except SessionNotFound:
            pass
        except (SessionBusy, OSError) as exc:
            raise _error(RequestError.invalid_request, str(exc)) from None
        return {}

    async def _reopen(self, cwd: str, session_id: str, servers: list[Any], *, replay: bool) -> _Session:
        workspace = _workspace(cwd)
        if session_id in self.sessions:
            await self._close(self.sessions.pop(session_id))
        session = self._open(workspace, session_id, servers)
        session.quiet = not replay
        try:
            session.core.resume(session_id)  # its history goes through the listener
        except NeoCodeError as exc:
            await self._close(session)
            kind = (RequestError.resource_not_found if isinstance(exc, SessionNotFound)
                    else RequestError.invalid_request)
            raise _error(kind, str(exc)) from None
        finally:
            session.quiet = False
        session.outbox.put(commands_update(session.core))
        session.outbox.put(usage_update(session.core.meter))
        await session.outbox.flush()
        self.sessions[session_id] = session
        return session

    async def list_sessions(self, cwd: str | None = None, **_: Any) -> ListSessionsResponse:
        workspace = _workspace(cwd) if cwd else Path.cwd()
        return ListSessionsResponse(sessions=[
            SessionInfo(session_id=info.id, cwd=info.workspace, title=info.title or None,
                        updated_at=info.updated.astimezone().isoformat(timespec="seconds"))
            for info in list_sessions(workspace, empty=True)
        ])

    async def set_session_mode(
        self, mode_id: str, session_id: str, **_: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        if mode_id not in APPROVAL_MODES:
            raise _error(RequestError.invalid_params,
                         f"no mode {mode_id!r}: the modes are {', '.join(APPROVAL_MODES)}")
        session.core.approval = mode_id
        session.outbox.put(options_update(session.core))  # an editor drawing the options too
        await session.outbox.flush()
        return SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool, **_: Any
                                ) -> SetSessionConfigOptionResponse:
        """Mode, model or effort, kept with the session; the answer is the whole set."""
        session = self._session(session_id)
        mode = session.core.approval
        try:
            set_option(session.core, config_id, value)
        except BadOption as exc:
            raise _error(RequestError.invalid_params, str(exc)) from None
        if session.core.approval != mode:  # an editor drawing the older mode menu
            session.outbox.put(update_current_mode(session.core.approval))
            await session.outbox.flush()
        return SetSessionConfigOptionResponse(config_options=list(config_options(session.core)))

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        session = self._session(session_id)
        text = prompt_text(prompt)
        command = parse_command(text)
        if command is not None and command[0] in COMMANDS:
            await run_built_in(session.core, *command, session.outbox.put,
                               lambda call, options: self._request(session, call, options))
            await session.outbox.flush()
            return PromptResponse(stop_reason="end_turn")
        try:
            images = await prompt_images(prompt)
        except BadImage as exc:
            raise _error(RequestError.invalid_params, str(exc)) from None
        await session.core.mcp.wait_ready()  # the MCP tools are offered from the first request
        session.updates.start_run()
        try:
            finished = await session.core.prompt(text, images)
        except WorkInProgress as exc:
            raise _error(RequestError.invalid_request, str(exc)) from None
        finally:
            session.outbox.put(usage_update(session.core.meter))
            await session.outbox.flush()
        if finished.reason == "error" and finished.error is not None:
            failure = (RequestError.auth_required if finished.error.kind == "auth"
                       else RequestError.internal_error)
            raise _error(failure, finished.error.message)
        return PromptResponse(stop_reason=session.updates.stop_reason(finished),
                              usage=_usage(session.updates.run_usage))

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.core.cancel()

    async def aclose(self) -> None:
        """Stop what runs and close every session; one never prompted keeps its file, for
        a client that makes sessions first and prompts them later (from another run)."""
        for session in list(self.sessions.values()):
            await self._close(session)
        self.sessions.clear()

    # -- inside ---------------------------------------------------------------------------

    def _open(self, workspace: Path, session_id: str | None, servers: list[Any]) -> _Session:
        """A session on the settings for ``workspace``, with the MCP ``servers`` the editor
        gave besides the user's (and, in a trusted folder, the folder's)."""
        try:
            loaded = load_from_args(self.args, workspace)
        except SettingsError as exc:
            raise _error(RequestError.invalid_params, str(exc)) from None
        for line in loaded.ignored:
            log.warning("%s", line)
        settings = loaded.settings
        if settings.fell_back_offline:
            raise _error(RequestError.auth_required, str(NoModel(" where the editor starts neocode")))
        outbox = Outbox(lambda update: self._notify(session.id, update))
        updates = UpdateTranslator(workspace, lambda name: core.loop.tools.get(name), outbox.put,
                                   lambda: commands_update(core), lambda: options_update(core))
        trusted = bool(self.args.trust)  # --trust: the folder of every session of this run
        buffers = (EditorBuffers(self.client, lambda: session.id, asyncio.get_running_loop())
                   if self.client is not None and offers_buffers(self.client_capabilities) else None)
        front = FrontEnd(
            listener=lambda event: None if session.quiet else updates.event(event),
            approver=lambda request: self._ask(session, request),
            elicitor=lambda question: ask_editor(
                question, outbox.put, lambda call, options: self._request(session, call, options)),
            plan_review=lambda proposed: self._ask_plan(session, proposed),
            questions=lambda asked: ask_questions(
                asked, lambda: updates.shown_call_id(asked.turn, asked.index, asked.call_id, "ask_user"),
                lambda call, options: self._request(session, call, options)),
        )
        core = AgentSession(settings, workspace, front,
                            mcp_configs=load_configs(workspace, _client_servers(servers)),
                            trusted=trusted, buffers=buffers)
        # A new session gets its file now: its id is the one session/load will be given.
        session = _Session(session_id or core.ensure_saved() or "", core, outbox, updates)
        core.mcp.start()  # connecting in the background: its tools join once it is up
        for notice in core.mcp.notices():
            log.warning(notice)
        return session

    async def _notify(self, session_id: str, update: Any) -> None:
        assert self.client is not None
        await self.client.session_update(session_id=session_id, update=update)

    async def _ask(self, session: _Session, request: ApprovalRequested) -> ApprovalDecision:
        """``session/request_permission``; a client that cannot answer is a no."""
        tool_call = await session.updates.permission_call(request)
        options = [
            PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
            PermissionOption(option_id="allow-always", name=f"Always allow {request.name}",
                             kind="allow_always"),
            PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
        ]
        answer = await self._request(session, tool_call, options)
        if answer is None:
            return ApprovalDecision(verdict="no", reason="the editor did not answer")
        outcome = answer.outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id in VERDICTS:
            return ApprovalDecision(verdict=VERDICTS[outcome.option_id])
        return ApprovalDecision(verdict="no")

    async def _ask_plan(self, session: _Session, proposed: PlanProposed) -> PlanDecision:
        """The plan as a permission request; an editor that cannot answer keeps planning."""
        answer = await self._request(session, await session.updates.plan_call(proposed), PLAN_OPTIONS)
        outcome = answer.outcome if answer is not None else None
        chosen = outcome.option_id if isinstance(outcome, AllowedOutcome) else "plan"
        return PlanDecision(mode="auto-edit" if chosen == "auto-edit" else "ask" if chosen == "ask" else "plan")

    async def _request(self, session: _Session, tool_call: ToolCallUpdate,
                       options: list[PermissionOption]) -> RequestPermissionResponse | None:
        """``session/request_permission``, once the updates before it are out (the call is
        on the editor's screen before the question); None when the editor could not answer."""
        assert self.client is not None
        await session.outbox.flush()
        try:
            return await self.client.request_permission(
                session_id=session.id, tool_call=tool_call, options=options
            )
        except (RequestError, ConnectionError, ValidationError) as exc:
            log.warning("no answer to a permission request: %s", exc)
            return None

    def _session(self, session_id: str) -> _Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise _error(RequestError.invalid_params,
                         f"no open session {session_id!r} (create one with session/new)")
        return session

    async def _close(self, session: _Session) -> None:
        await session.core.aclose()
        await session.outbox.flush()
        await session.outbox.aclose()


def prompt_text(blocks: list[Any]) -> str:
    """The prompt as the model reads it: text, with embedded files as tagged context."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                parts.append(f'\n<context ref="{resource.uri}">\n{resource.text}\n</context>\n')
            else:
                parts.append(f"[{resource.uri}: binary content, not included]")
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"[{block.name}]({block.uri})")
        elif not has_images([block]):
            raise _error(RequestError.invalid_params,
                         "neocode takes text, images and embedded text files, not audio")
    text = "".join(parts)
    if not text.strip() and not has_images(blocks):
        raise _error(RequestError.invalid_params, "the prompt is empty")
    return text


def _client_servers(servers: list[Any]) -> Configs:
    """The editor's MCP servers as configs: stdio and streamable HTTP (what the agent says
    it supports); any other transport is a problem named in the log."""
    entries: list[ServerEntry] = []
    problems: list[str] = []
    for server in servers:
        config: StdioServer | HttpServer
        try:
            if isinstance(server, McpServerStdio):
                config = StdioServer(command=server.command, args=server.args,
                                     env={variable.name: variable.value for variable in server.env})
            elif isinstance(server, HttpMcpServer):
                config = HttpServer(type="http", url=server.url,
                                    headers={header.name: header.value for header in server.headers})
            else:
                kind = getattr(server, "type", type(server).__name__)
                problems.append(f"{CLIENT}: server {server.name!r}: the {kind} transport is not "
                                "supported (stdio and http are)")
                continue
        except ValueError as exc:
            problems.append(f"{CLIENT}: server {server.name!r}: {describe(exc)}")
            continue
        entries.append(ServerEntry(server.name, config, "client", CLIENT))
    return Configs(entries, problems)


def _workspace(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute() or not path.is_dir():
        raise _error(RequestError.invalid_params, f"cwd must be an absolute path to a folder: {cwd!r}")
    try:
        refuse_too_wide(path)
    except WorkspaceTooWide as exc:
        raise _error(RequestError.invalid_params, str(exc)) from None
    return path


def _modes(current: ApprovalMode) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current,
        available_modes=[
            SessionMode(id=mode, name=name, description=sentence(MODE_DESCRIPTIONS[mode]))
            for mode, name in MODE_NAMES.items()
        ],
    )


def _usage(usage: CoreUsage) -> Usage | None:
    """The prompt's tokens for the client; none when the server reported none."""
    if usage.input_tokens is None and usage.output_tokens is None:
        return None
    inputs, outputs = usage.input_tokens or 0, usage.output_tokens or 0
    return Usage(
        total_tokens=inputs + outputs, input_tokens=inputs, output_tokens=outputs,
        thought_tokens=usage.reasoning_tokens, cached_read_tokens=usage.cached_input_tokens,
        cached_write_tokens=usage.cache_creation_input_tokens,
    )


def _error(kind: Any, message: str) -> RequestError:
    """An error of ``kind``'s code whose message says what happened, for the client to show."""
    return RequestError(kind().code, message)
