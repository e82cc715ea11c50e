"""Shell completion: `remedy-async completion bash|zsh|fish` prints the script to source, and
the command completes its own words when a shell asks (argcomplete, which reads the parser).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Final

from ._errors import UsageError
from ._terminal import Terminal

SHELLS: Final = ("bash", "zsh", "fish")
COMPLETING: Final = "_ARGCOMPLETE"
"""Set by the completion script when the shell asks the command for completions."""


def complete_if_asked(build_parser: Callable[[], argparse.ArgumentParser]) -> None:
    """Answer a shell's completion request and exit; return at once when there is none.

    argcomplete is imported only then, so ordinary runs pay nothing for it.
    """
    if COMPLETING not in os.environ:
        return
    import argcomplete  # noqa: PLC0415 - only when completing

    argcomplete.autocomplete(build_parser())


async def run_completion(options: argparse.Namespace, terminal: Terminal) -> int:
    """Print the completion script of the chosen shell; source it, or save it where the shell
    looks (e.g. `remedy-async completion bash > ~/.local/share/bash-completion/completions/
    remedy-async`)."""
    try:
        from argcomplete.shell_integration import shellcode  # noqa: PLC0415 - cli extra
    except ImportError:
        raise UsageError(
            "completion needs argcomplete; install the command-line extra: "
            "pip install 'remedy-async[cli]'"
        ) from None
    script = shellcode(["remedy-async"], shell=options.shell)
    terminal.stdout.write(script.encode())
    terminal.stdout.flush()
    return 0
