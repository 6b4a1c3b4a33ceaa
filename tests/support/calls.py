"""The tool calls a scripted model makes, as ``Dialect.reply`` takes them: ``(id, name,
arguments_json)``."""

from __future__ import annotations

import json

TODOS = [
    {"content": "Read app.py", "status": "completed"},
    {"content": "Add a --name flag", "status": "in_progress"},
    {"content": "Run the tests", "status": "pending"},
]
PLAN = "1. Add `--name` to app.py\n2. Test it with pytest"


def todo_call(call_id: str = "t1", todos: list[dict[str, str]] = TODOS) -> tuple[str, str, str]:
    return (call_id, "todo_write", json.dumps({"todos": todos}))


def plan_call(call_id: str = "p1", plan: str = PLAN) -> tuple[str, str, str]:
    return (call_id, "exit_plan_mode", json.dumps({"plan": plan}))


def bash(call_id: str, command: str, **extra: object) -> tuple[str, str, str]:
    return (call_id, "bash", json.dumps({"command": command, **extra}))


QUESTIONS = [
    {"question": "Which database should the app use?", "header": "Database",
     "options": [{"label": "PostgreSQL (Recommended)", "description": "a server, robust under load"},
                 {"label": "SQLite", "description": "one file, nothing to run"}]},
    {"question": "Which parts should come first?", "header": "Scope", "multiSelect": True,
     "options": [{"label": "Sign-in", "description": "accounts and sessions"},
                 {"label": "Billing", "description": "plans and invoices"},
                 {"label": "Export", "description": "CSV downloads"}]},
]


def ask_call(call_id: str = "q1", questions: list[dict[str, object]] = QUESTIONS) -> tuple[str, str, str]:
    return (call_id, "ask_user", json.dumps({"questions": questions}))
