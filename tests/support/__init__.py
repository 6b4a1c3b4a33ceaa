"""What the tests share, a module a concern; a test imports each module by its own name.

- The model: ``model_server`` (a loopback HTTP server, every byte scripted), ``sse`` (the
  bodies it streams), ``dialects`` (it playing OpenAI or Anthropic), ``llama_like`` (a
  server that bends the format), ``providers`` (the provider tests' key and time limits).
- The agent: ``sessions``, ``recorder`` (the events heard), ``transcripts``, ``calls`` (the
  tool calls a model makes), ``hooks``, ``images``, ``long_session``, ``processes``,
  ``sandbox``, ``programs`` (stand-ins on PATH), ``web_server``.
- NeoCode run as a user runs it: ``headless`` (``neocode -p``), ``acp_editor`` and ``acp_raw``
  (``neocode acp``), ``serving`` (``neocode serve``), ``tmux`` (a real terminal),
  ``first_run``.
- The app: ``apps``, ``screens`` (the demo scripts and states part way), ``reading`` (the
  screen's text), ``waits``, ``terminal`` (hostile text and what reached a terminal).
- MCP: ``mcp_launch``, ``mcp_servers`` (the scripts it runs), ``mcp_config``, ``mcp_sessions``.
- The layout: ``layout`` (the tests' own), ``shape`` (the package's).
"""
