"""The environment of a sandboxed command: an allow-list, not a list of what to remove.

Tokens live in variables of every name (``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``,
``HF_TOKEN``, ``ANTHROPIC_AUTH_TOKEN``, an MCP server's header token), and what a command
prints reaches the model. So a sandboxed command gets only the variables a build reads:
the locale, the terminal, the shell's basics and the toolchains' own settings. Even
among those, a name that says it holds a secret (``NODE_AUTH_TOKEN``,
``CARGO_REGISTRY_TOKEN``) and a value with credentials in a URL
(``PIP_INDEX_URL=https://user:pass@…``) stay out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

ALLOWED_NAMES = frozenset({
    # the shell and the terminal
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "NO_COLOR", "TZ",
    "LANG", "LANGUAGE", "HOSTNAME", "PAGER", "GIT_PAGER", "EDITOR", "VISUAL", "CI",
    "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
    # compilers and linkers
    "CC", "CXX", "CPP", "LD", "AR", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "MAKEFLAGS",
    "PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH", "CMAKE_PREFIX_PATH", "CMAKE_GENERATOR",
    # Python
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_ROOT", "PYENV_VERSION",
    # Go
    "GOPATH", "GOROOT", "GOBIN", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOPRIVATE",
    "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOTOOLCHAIN", "GO111MODULE", "GOOS", "GOARCH",
    "CGO_ENABLED",
    # JavaScript
    "NVM_DIR", "NVM_BIN", "VOLTA_HOME", "BUN_INSTALL", "DENO_DIR", "PNPM_HOME",
    # JVM and others
    "JAVA_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME", "GRADLE_USER_HOME", "MAVEN_OPTS",
    "SDKMAN_DIR", "DOTNET_ROOT", "GEM_HOME", "GEM_PATH", "RBENV_ROOT",
    # certificates and proxies (for --sandbox-network)
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
    # git's identity
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
})
"""Compared in upper case, so ``http_proxy`` is ``HTTP_PROXY``."""
ALLOWED_PREFIXES = (
    "LC_", "PYTHON", "PIP_", "UV_", "POETRY_", "CARGO_", "RUST", "NODE_", "NPM_CONFIG_",
)
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|AUTH(?!OR)|CREDENTIAL|PRIVATE_KEY", re.I)
URL_CREDENTIALS = re.compile(r"://[^/\s@]+@")


def allowed_environment(base: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``base`` a sandboxed command may see."""
    return {name: value for name, value in base.items() if _allowed(name, value)}


def _allowed(name: str, value: str) -> bool:
    upper = name.upper()
    if upper not in ALLOWED_NAMES and not upper.startswith(ALLOWED_PREFIXES):
        return False
    return not SECRET_NAME.search(name) and not URL_CREDENTIALS.search(value)
