"""What the user adds to the agent: hooks, custom commands, skills, memory files, ``@`` mentions
and prompt expansion."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.extensions.custom_commands import (
        FRONT_MATTER,
        CustomCommands,
        PromptCommand,
        load_commands,
        markdown_files,
        read_prompt_file,
    )
    from neocode_tui.agent.extensions.file_index import FileIndex, IndexEntry, Snapshot, list_files, rank
    from neocode_tui.agent.extensions.hooks import Hooks, Permission, ToolVerdict, load_hooks
    from neocode_tui.agent.extensions.memory_files import MAX_FILE, MemoryFile, MemoryFiles
    from neocode_tui.agent.extensions.mentions import mention_for, typed_part
    from neocode_tui.agent.extensions.prompt_expansion import PromptExpansion
    from neocode_tui.agent.extensions.session_hooks import SessionHooks
    from neocode_tui.agent.extensions.shell_lines import ShellLines
    from neocode_tui.agent.extensions.skills import (
        SKILL_FILE,
        SkillCatalogue,
        commands_and_skills,
        find_skills,
        skill_body,
        skill_files,
    )

__all__ = [
    "mention_for",
    "typed_part",
    "CustomCommands",
    "FRONT_MATTER",
    "FileIndex",
    "Hooks",
    "IndexEntry",
    "MAX_FILE",
    "MemoryFile",
    "MemoryFiles",
    "Permission",
    "PromptCommand",
    "PromptExpansion",
    "SKILL_FILE",
    "SessionHooks",
    "ShellLines",
    "SkillCatalogue",
    "Snapshot",
    "ToolVerdict",
    "commands_and_skills",
    "find_skills",
    "list_files",
    "load_commands",
    "load_hooks",
    "markdown_files",
    "rank",
    "read_prompt_file",
    "skill_body",
    "skill_files",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "mentions": ("mention_for", "typed_part",),
        "custom_commands": (
            "CustomCommands",
            "FRONT_MATTER",
            "PromptCommand",
            "load_commands",
            "markdown_files",
            "read_prompt_file",
        ),
        "file_index": ("FileIndex", "IndexEntry", "Snapshot", "list_files", "rank",),
        "hooks": ("Hooks", "Permission", "ToolVerdict", "load_hooks",),
        "memory_files": ("MAX_FILE", "MemoryFile", "MemoryFiles",),
        "prompt_expansion": ("PromptExpansion",),
        "session_hooks": ("SessionHooks",),
        "shell_lines": ("ShellLines",),
        "skills": ("SKILL_FILE", "SkillCatalogue", "commands_and_skills", "find_skills", "skill_body",
                   "skill_files",),
    })
