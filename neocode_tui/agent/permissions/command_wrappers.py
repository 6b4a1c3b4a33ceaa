"""Programs that run other programs, and how each reads its words: the one table the
permission rules consult to find the command a wrapper or a shell runs.

``timeout -s KILL 5 rm x`` runs ``rm x`` only if ``-s`` takes a value and one operand
comes before the command; ``bash -o posix -c 'rm x'`` runs ``rm x`` only if ``-o`` takes
a value. Each entry lists every option it knows, and whether it takes a value. An option
missing from its entry is never guessed at: no allow rule covers the command, a deny or ask
rule looks at every later word as a possible command (and a shell's command asks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Runs = Literal["words", "script", "shell", "find", "xargs"]
"""How the command is given: the words after the options (``sudo rm x``), those words
joined as a command line (``watch rm x``, ``eval``), a shell's ``-c`` command line or
script file, what ``find -exec`` runs, what ``xargs`` runs (with words from its input)."""


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Invocation:
    """How one program reads its words. Options end at ``--`` (and at the first operand);
    a short option that takes a value takes the rest of its cluster or the next word, a
    long one ``--name=value`` or the next word."""

    runs: Runs = "words"
    flags: frozenset[str] = frozenset()
    """Options without a value: ``-v``, ``--verbose``."""
    valued: frozenset[str] = frozenset()
    """Options that take a value."""
    attached: frozenset[str] = frozenset()
    """Options whose value, if any, is attached only (``xargs -i{}``, ``--replace=X``)."""
    scripts: frozenset[str] = frozenset()
    """Options whose value is a command line run by a shell (``fish -c``, ``fish -C``)."""
    splits: frozenset[str] = frozenset()
    """Options whose value is split into more words of the command (``env -S``)."""
    fills: frozenset[str] = frozenset()
    """Options whose value (``{}`` when none) is replaced in the command by words of the
    input (``xargs -I%``)."""
    queries: frozenset[str] = frozenset()
    """Options with which the program runs no command (``command -v``)."""
    operands: int = 0
    """Words between the options and the command (``timeout``'s duration)."""
    after_operands: frozenset[str] = frozenset()
    """An option after the operands whose value is a command line (``flock f -c cmd``)."""
    permute: bool = False
    """Options may come after operands too (GNU getopt's default: ``su root -c cmd``)."""
    shell_options: frozenset[str] = frozenset()
    """Options with which, given no command, it starts a shell that reads its input
    (``sudo -s``)."""
    default_shell: bool = False
    """Given no command, it starts a shell that reads its input (``chroot /srv``, ``su``)."""
    assignments: bool = False
    """``NAME=value`` words may come before the command (``env``, ``sudo``)."""
    numbers: bool = False
    """``-5`` is an option (``nice -5 cmd``)."""
    plus: bool = False
    """``+o name``, ``+e`` are options too (shells)."""
    abbreviations: bool = True
    """A long option may be shortened to a unique prefix (GNU getopt); shells do not."""
    next_words: bool = False
    """A short option's value is always a next word, one per letter that takes one, never
    the rest of its cluster (shells: ``bash -oc pipefail 'cmd'``)."""
    any_long: bool = False
    """Every ``--name`` not in ``valued`` is an option without a value (zsh's option names)."""
    ends: frozenset[str] = field(default_factory=lambda: frozenset({"--"}))
    """Words that end the options."""


_BOURNE = Invocation(
    runs="shell", plus=True, next_words=True, abbreviations=False, ends=_names("-- -"),
    flags=_names("-a -b -c -e -f -h -i -k -l -m -n -p -q -r -s -t -u -v -x -B -C -D -E -H -I -P -T -V "
                 "--debug --debugger --dump-po-strings --dump-strings --help --login --noediting "
                 "--noprofile --norc --posix --pretty-print --restricted --verbose --version"),
    valued=_names("-o -O --rcfile --init-file"),
)
"""bash, sh, dash, ash: ``-c`` makes the first operand the command line, wherever it
stands among the options."""
_KORN = Invocation(
    runs="shell", plus=True, next_words=True, abbreviations=False, ends=_names("-- -"),
    flags=_names("-a -b -c -e -f -h -i -k -l -m -n -p -r -s -t -u -v -x -B -C -E -U -X"),
    valued=_names("-o -T -R"),
)
_ZSH = Invocation(
    runs="shell", plus=True, next_words=True, abbreviations=False, any_long=True, ends=_names("-- - -b"),
    flags=frozenset(f"-{letter}" for letter in
                    "0123456789abcdefghijklmnpqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    valued=_names("-o --emulate"),
)
_CSH = Invocation(
    runs="shell", abbreviations=False, ends=_names("-- -"),
    flags=_names("-b -c -d -e -f -i -l -m -n -q -s -t -v -x -F -V -X"),
    valued=_names("-D"),
)
_FISH = Invocation(
    runs="shell", ends=_names("--"),
    flags=_names("-i -l -n -N -P -v -h --interactive --login --no-execute --no-config --private "
                 "--version --help --print-rusage-self --print-debug-categories"),
    valued=_names("-d -o -f --debug --debug-output --features --profile --profile-startup"),
    scripts=_names("-c -C --command --init-command"),
)
_SU = Invocation(
    permute=True, operands=1, default_shell=True,
    flags=_names("- -f -l -m -p -P --fast --login --preserve-environment --pty"),
    valued=_names("-g -G -s -w --group --supp-group --shell --whitelist-environment"),
    scripts=_names("-c --command --session-command"),
)
"""su, runuser: ``-c`` is the command line, the operand the user; the rest goes to the shell."""

PROGRAMS: dict[str, Invocation] = {
    **dict.fromkeys(("sh", "bash", "rbash", "dash", "ash"), _BOURNE),
    **dict.fromkeys(("ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "yash", "posh"), _KORN),
    "zsh": _ZSH,
    **dict.fromkeys(("csh", "tcsh"), _CSH),
    "fish": _FISH,
    "eval": Invocation(runs="script"),
    "watch": Invocation(
        runs="script",
        flags=_names("-b -c -C -d -e -f -g -p -r -t -w -x --beep --color --no-color --errexit "
                     "--chgexit --precise --no-title --no-wrap --no-linewrap --exec"),
        valued=_names("-n -q --interval --equexit"), attached=_names("--differences"),
    ),
    "env": Invocation(
        assignments=True,
        flags=_names("- -0 -i -v --null --ignore-environment --debug --list-signal-handling"),
        valued=_names("-u -C --unset --chdir"), splits=_names("-S --split-string"),
        attached=_names("--block-signal --default-signal --ignore-signal"),
    ),
    "sudo": Invocation(
        assignments=True,
        flags=_names("-A -b -E -H -i -k -K -n -P -S -s -B -N --askpass --background --bell "
                     "--login --non-interactive --preserve-groups --shell --stdin --set-home "
                     "--reset-timestamp --remove-timestamp --no-update"),
        valued=_names("-C -D -g -h -p -R -r -t -T -U -u --close-from --chdir --chroot --group "
                      "--host --prompt --role --type --command-timeout --other-user --user"),
        attached=_names("--preserve-env"), queries=_names("-l -v -V --list --validate --version"),
        shell_options=_names("-i -s --login --shell"),
    ),
    "doas": Invocation(flags=_names("-L -n -s"), valued=_names("-a -C -u"), shell_options=_names("-s")),
    "su": _SU, "runuser": _SU,
    "pkexec": Invocation(flags=_names("--disable-internal-agent --keep-cwd"), valued=_names("--user")),
    **dict.fromkeys(("timeout", "gtimeout"), Invocation(
        operands=1, flags=_names("-v --foreground --preserve-status --verbose"),
        valued=_names("-k -s --kill-after --signal"),
    )),
    "nice": Invocation(numbers=True, valued=_names("-n --adjustment")),
    "nohup": Invocation(),
    "setsid": Invocation(flags=_names("-c -f -w --ctty --fork --wait")),
    "stdbuf": Invocation(valued=_names("-i -o -e --input --output --error")),
    "unbuffer": Invocation(flags=_names("-p")),
    "time": Invocation(
        flags=_names("-p -v -a -q --portability --verbose --append --quiet"),
        valued=_names("-f -o --format --output"),
    ),
    "command": Invocation(flags=_names("-p"), queries=_names("-v -V")),
    "exec": Invocation(flags=_names("-c -l"), valued=_names("-a")),
    "builtin": Invocation(),
    "busybox": Invocation(),
    "ionice": Invocation(
        flags=_names("-t --ignore"), valued=_names("-c -n -p -P -u --class --classdata --pid --pgid --uid"),
    ),
    "chrt": Invocation(
        operands=1,
        flags=_names("-a -b -d -e -f -i -o -r -R -v --all-tasks --batch --deadline --ext --fifo "
                     "--idle --other --rr --reset-on-fork --verbose"),
        valued=_names("-T -P -D --sched-runtime --sched-period --sched-deadline"),
        queries=_names("-m -p --max --pid"),
    ),
    "taskset": Invocation(operands=1, flags=_names("-a -c --all-tasks --cpu-list"), queries=_names("-p --pid")),
    "flock": Invocation(
        operands=1, after_operands=_names("-c --command"),
        flags=_names("-s -x -e -u -n -o -F --shared --exclusive --unlock --nonblock --nb --close "
                     "--no-fork --verbose"),
        valued=_names("-w -E --wait --timeout --conflict-exit-code"),
    ),
    "chroot": Invocation(operands=1, default_shell=True, flags=_names("--skip-chdir"),
                         valued=_names("--userspec --groups")),
    "xargs": Invocation(
        runs="xargs",
        flags=_names("-0 -o -p -r -t -x --null --open-tty --interactive --no-run-if-empty --verbose "
                     "--exit"),
        valued=_names("-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs "
                      "--max-chars --process-slot-var"),
        attached=_names("-e -i -l --eof --replace --max-lines"), queries=_names("--show-limits"),
        fills=_names("-I -i --replace"),
    ),
    "find": Invocation(runs="find"),
    **dict.fromkeys(("source", "."), Invocation(runs="shell", ends=frozenset())),
    "script": Invocation(
        runs="shell", default_shell=True, scripts=_names("-c --command"),
        flags=_names("-a -e -f -q --append --return --flush --quiet"),
    ),
    "strace": Invocation(
        flags=_names("-c -C -d -D -f -F -h -i -k -n -q -r -t -T -v -V -w -x -y -z -Z"),
        valued=_names("-a -b -e -E -I -o -O -p -P -s -S -u -X"),
    ),
    "faketime": Invocation(operands=1),
    **dict.fromkeys((
        "ltrace", "fakeroot", "firejail", "unshare", "nsenter", "numactl", "prlimit", "cpulimit",
        "systemd-run", "run0", "proxychains", "proxychains4", "torsocks", "caffeinate", "chronic",
        "ifne", "entr", "catchsegv", "xvfb-run", "dbus-run-session",
    ), Invocation()),
}
"""Each program that makes another run, by the name it is called with. An entry that knows
no options still counts: with any option, a deny rule looks at every later word."""
FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
"""``find`` actions whose words up to ``;`` or ``+`` are a command."""
