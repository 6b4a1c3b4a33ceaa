"""What a run is configured with; ``neocode_tui.settings.load`` gathers it from its sources.

Base URLs follow the official SDKs: OpenAI's includes ``/v1``, Anthropic's does not, so a
user's existing ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` work as they are.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SecretStr

from neocode_tui.redact import url_secrets
from neocode_tui.settings.compat import OpenAICompat, parse_compat
from neocode_tui.vocabulary import OFFLINE_PROVIDER, ApprovalMode, Effort, ProviderName, SandboxMode, is_offline

NotifyMode = Literal["off", "bell", "osc9", "osc777"]
"""How the app calls the user back while its terminal window has no focus: nothing, the
bell, or a desktop notification by OSC 9 or OSC 777 (see ``neocode_tui.tui.attention``)."""

DEFAULT_MODELS: dict[str, str] = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
    OFFLINE_PROVIDER: "scripted",
}
DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    OFFLINE_PROVIDER: "",
}


def _host_list(value: Any) -> Any:
    """The environment gives ``a,b`` text; ``config.toml`` a list or the same text."""
    return [part for part in value.split(",") if part.strip()] if isinstance(value, str) else value


def _name_list(value: Any) -> Any:
    """The environment gives ``a, b`` text; ``config.toml`` a list or the same text; a
    repeated flag a list of such texts."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return value
    return [part.strip() for item in value for part in item.split(",") if part.strip()]


def _compat(value: Any) -> Any:
    """The environment gives ``key=value,...`` text; code may pass the model or a dict."""
    return parse_compat(value) if isinstance(value, str) else value


def _status_line(value: Any) -> Any:
    """The environment gives the command alone; ``config.toml`` a table."""
    return {"command": value} if isinstance(value, str) else value


class StatusLine(BaseModel):
    """The user's status-line command (``status_line = {command = "...", refresh_seconds = 5}``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    command: str = Field(min_length=1)
    """Run by ``/bin/sh -c`` in the workspace with Claude Code's status-line JSON on stdin;
    its first line is drawn under the status bar."""
    refresh_seconds: float | None = Field(None, ge=1, le=3600, allow_inf_nan=False)
    """Also run this often (unset: only when the conversation changes)."""
    timeout_seconds: float = Field(5.0, gt=0, le=60, allow_inf_nan=False)
    """A run that takes longer is stopped, and the row says so."""


class Settings(BaseModel):
    """Each field's alias is its environment variable; code builds it by field name. The
    docstrings are the descriptions ``neocode config --reference`` writes into docs/settings.md."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    provider: ProviderName | None = Field(None, validation_alias="NEOCODE_PROVIDER")
    """Which API to talk to: ``openai`` (any OpenAI-compatible server), ``anthropic``, or the
    offline ``scripted`` model. Unset: the one whose key is set, else the offline model."""
    base_url: str | None = Field(None, validation_alias="NEOCODE_BASE_URL")
    """The API's base URL for either provider (OpenAI-style URLs include ``/v1``); wins over
    ``OPENAI_BASE_URL`` and ``ANTHROPIC_BASE_URL``."""
    model: str | None = Field(None, validation_alias="NEOCODE_MODEL")
    """The model name sent to the provider (``gpt-4o-mini`` or ``claude-sonnet-4-5`` when unset)."""
    openai_api_key: SecretStr | None = Field(None, validation_alias="OPENAI_API_KEY")
    """The key for OpenAI or an OpenAI-compatible server; never shown, logged or saved."""
    openai_base_url: str | None = Field(None, validation_alias="OPENAI_BASE_URL")
    """The OpenAI SDK's own variable, honoured as it is (with ``/v1``)."""
    anthropic_api_key: SecretStr | None = Field(None, validation_alias="ANTHROPIC_API_KEY")
    """The key for Anthropic's API; never shown, logged or saved."""
    anthropic_base_url: str | None = Field(None, validation_alias="ANTHROPIC_BASE_URL")
    """The Anthropic SDK's own variable, honoured as it is (without ``/v1``)."""

    connect_timeout: float = Field(10.0, gt=0, allow_inf_nan=False,
                                   validation_alias="NEOCODE_CONNECT_TIMEOUT")
    """Seconds to open a connection to the server (and to send the request)."""
    first_byte_timeout: float = Field(45.0, gt=0, allow_inf_nan=False,
                                      validation_alias="NEOCODE_FIRST_BYTE_TIMEOUT")
    """Seconds from sending a request to the server's first event (keep-alives do not count).
    Raise it for a local model that reads long prompts slowly."""
    idle_timeout: float = Field(60.0, gt=0, allow_inf_nan=False,
                                validation_alias="NEOCODE_IDLE_TIMEOUT")
    """Seconds a stream may go without a complete line once events flow before it is
    called stalled and retried."""
    request_timeout: float = Field(600.0, gt=0, allow_inf_nan=False,
                                   validation_alias="NEOCODE_REQUEST_TIMEOUT")
    """The longest one request (one attempt) may take, however the server trickles."""
    max_retries: int = Field(3, ge=0, le=10, validation_alias="NEOCODE_MAX_RETRIES")
    """Attempts after the first one, for retryable failures (timeouts get one retry at most)."""
    rate_limit_max_wait: float = Field(300.0, ge=0, le=86_400, allow_inf_nan=False,
                                       validation_alias="NEOCODE_RATE_LIMIT_MAX_WAIT")
    """Seconds a rate-limited request (HTTP 429) may wait for the reset the server names
    (counted down, Esc stops it); a longer wait fails at once instead."""
    openai_compat: Annotated[OpenAICompat, BeforeValidator(_compat)] = Field(
        default_factory=OpenAICompat, validation_alias="NEOCODE_OPENAI_COMPAT")
    """What an OpenAI-compatible server needs done differently, e.g.
    ``tool_choice=required,stream_options=false`` (each option is in docs/settings.md)."""

    approval: ApprovalMode | None = Field(
        None, validation_alias="NEOCODE_APPROVAL"
    )
    """What needs your yes: ``ask``, ``auto-edit``, ``full-auto`` or ``plan`` (unset: ``ask``)."""
    max_turns: int = Field(25, ge=1, validation_alias="NEOCODE_MAX_TURNS")
    """Model requests one prompt may take (each tool round is one) before the run stops."""
    goal_max_turns: int = Field(20, ge=1, le=1_000, validation_alias="NEOCODE_GOAL_MAX_TURNS")
    """Turns a ``/goal`` may take (each a prompt's whole run) before it stops unmet."""
    goal_max_minutes: float = Field(120, gt=0, allow_inf_nan=False, validation_alias="NEOCODE_GOAL_MAX_MINUTES")
    """Minutes a ``/goal`` may keep the agent working before it stops unmet."""
    theme: str | None = Field(None, validation_alias="NEOCODE_THEME")
    """The app's theme by name (unset: the one picked with ``/theme`` last, else ``neocode-dark``)."""
    notify: NotifyMode = Field("bell", validation_alias="NEOCODE_NOTIFY")
    """What a turn's end or a waiting approval sends while the terminal is not in focus."""
    exit_transcript: bool = Field(True, validation_alias="NEOCODE_EXIT_TRANSCRIPT")
    """Whether quitting the app leaves the conversation in the terminal's scrollback (prompts,
    answers, one line per tool call, the latest part of a long one) above the line that says
    how to continue; ``false`` leaves that line alone."""
    screen_reader: bool = Field(False, validation_alias="NEOCODE_SCREEN_READER")
    """The conversation as plain lines appended in order, for a screen reader: each message,
    tool call and result said once when complete, questions naming their keys in words, the
    status read on demand (``?``); no box drawing, spinners or redraws (docs/accessibility.md)."""

    context_window: int | None = Field(None, ge=1_000, validation_alias="NEOCODE_CONTEXT_WINDOW")
    """Tokens the model can read, for local and unknown models (or a server set to less)."""
    compact_threshold: float = Field(
        0.85, gt=0, le=1, allow_inf_nan=False, validation_alias="NEOCODE_COMPACT_THRESHOLD"
    )
    """How full the window may get before the history is compacted between prompts."""
    sandbox: SandboxMode | None = Field(None, validation_alias="NEOCODE_SANDBOX")
    """Where commands may write: ``workspace-write``, ``read-only`` or ``off`` (unset:
    ``workspace-write`` where bubblewrap works)."""
    sandbox_network: bool = Field(False, validation_alias="NEOCODE_SANDBOX_NETWORK")
    """Whether sandboxed commands may reach the network."""
    web_fetch_allow: Annotated[list[str], BeforeValidator(_host_list)] = Field(
        default_factory=list, validation_alias="NEOCODE_WEB_FETCH_ALLOW")
    """Hosts, addresses or networks web_fetch may reach although they are not public
    (``127.0.0.1,docs.internal``); the user's alone (never a workspace's ``.env``)."""

    effort: Effort | None = Field(None, validation_alias="NEOCODE_EFFORT")
    """How hard the model thinks: ``low``, ``medium`` or ``high``, as OpenAI's ``reasoning_effort``
    or Anthropic's thinking budget; sent only to models that take it (unset: the server's default)."""
    cache_control: bool = Field(True, validation_alias="NEOCODE_CACHE_CONTROL")
    """Anthropic ``cache_control`` breakpoints; off for a server that rejects them."""
    max_budget_usd: float | None = Field(None, gt=0, allow_inf_nan=False,
                                         validation_alias="NEOCODE_MAX_BUDGET_USD")
    """Dollars the session may spend: ``-p`` stops before passing it, the app warns at 80 %
    and asks before passing it."""
    fallback_models: Annotated[list[str], BeforeValidator(_name_list)] = Field(
        default_factory=list, validation_alias="NEOCODE_FALLBACK_MODELS")
    """Models of the same provider that take over, in order, when the model is overloaded,
    rate limited or refused after the retries; the next prompt tries the model again."""
    small_model: str | None = Field(None, validation_alias="NEOCODE_SMALL_MODEL")
    """The model for side work (titles, summaries, explore subagents), same provider."""
    images: bool = Field(True, validation_alias="NEOCODE_IMAGES")
    """Whether the model takes images; ``false`` sends a line in place of each one."""
    telemetry: bool = Field(False, validation_alias="NEOCODE_ENABLE_TELEMETRY")
    """OpenTelemetry metrics, events and traces of turns, tokens, cost and tool calls, sent
    over OTLP/HTTP to ``OTEL_EXPORTER_OTLP_ENDPOINT``; needs ``neocode-tui[telemetry]``.
    Prompts are left out unless ``OTEL_LOG_USER_PROMPTS=1``. Yours only: a workspace never
    turns it on."""
    status_line: Annotated[StatusLine | None, BeforeValidator(_status_line)] = Field(
        None, validation_alias="NEOCODE_STATUS_LINE")
    """A command whose first line the app draws under its status bar, given Claude Code's
    status-line JSON on stdin: ``{command = "~/.claude/statusline.sh", refresh_seconds = 5}``."""

    @property
    def resolved_provider(self) -> ProviderName:
        """The named provider, else the one whose key is set, else the offline scripted model."""
        if self.provider:
            return self.provider
        if self.openai_api_key:
            return "openai"
        if self.anthropic_api_key:
            return "anthropic"
        return OFFLINE_PROVIDER

    @property
    def offline(self) -> bool:
        """The built-in offline model is what these settings run (``vocabulary.is_offline``)."""
        return is_offline(self.resolved_provider)

    @property
    def fell_back_offline(self) -> bool:
        """The offline model only because no key is set and no provider named: the app's tour.
        A headless run or an editor asked for a real model, so it says how to set one
        (``NoModel``); ``--provider scripted`` named on purpose runs the tour there too."""
        return self.provider is None and self.offline

    @property
    def resolved_model(self) -> str:
        return self.model or DEFAULT_MODELS[self.resolved_provider]

    @property
    def resolved_base_url(self) -> str:
        provider = self.resolved_provider
        vendor = {"openai": self.openai_base_url, "anthropic": self.anthropic_base_url}.get(
            provider
        )
        return (self.base_url or vendor or DEFAULT_BASE_URLS[provider]).rstrip("/")

    @property
    def secrets(self) -> list[str]:
        """Every key configured, in use or not, and the credentials in the base URLs: none
        may reach the screen, a log or a file."""
        keys = [key.get_secret_value() for key in (self.openai_api_key, self.anthropic_api_key) if key]
        urls = (self.base_url, self.openai_base_url, self.anthropic_base_url)
        return keys + [secret for url in urls if url for secret in url_secrets(url)]

    @property
    def api_key(self) -> str | None:
        key = {"openai": self.openai_api_key, "anthropic": self.anthropic_api_key}.get(
            self.resolved_provider
        )
        return key.get_secret_value() if key else None
