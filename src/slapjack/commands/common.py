"""What every ``slapjack`` command shares: help, errors, output files, checks.

* Help: ``-h`` and ``--help``; a value option shows what it takes (``N``,
  ``FILE``; its ``metavar``) and never a Python type; a flag shows nothing.
* ``--version`` on the root and on every command (:data:`VersionOption`).
* Errors: one line ``slapjack CMD: what is wrong`` on stderr, exit status 2,
  never wrapped (:class:`CommandError`; a value click cannot convert is reported
  the same way). Rich's usage box only for usage errors (an unknown option or
  command, a missing argument) and only on a terminal; piped, those are one line
  too.
* Output files: ``-`` is standard output; each file written says ``wrote FILE``
  on stderr (:func:`write_output`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated, Any

import typer
import typer.rich_utils as rich_utils
from rich.console import Console
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

try:  # Typer >= 0.22 carries its own copy of click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older Typer on click itself
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

# Typer's option table: one space between its columns (its default is two).
# At 80 columns the long names of `slapjack serve` (--anticipation-floor-ms
# beside a --no-... column) were cut with "…" otherwise.
rich_utils.STYLE_OPTIONS_TABLE_PADDING = (0, 1, 0, 0)

EXIT_USAGE = 2
"""Exit status of every refused command line or input."""

SEED_MAX = 2**64 - 1
"""Seeds are 64-bit: ``--seed`` takes 0 to 2^64-1 in every command."""


class CommandError(Exception):
    """What is wrong with a command's arguments or input: printed as one line
    ``slapjack CMD: message`` on stderr; the command exits with ``status``."""

    def __init__(self, message: str, status: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = " ".join(message.split())
        self.status = status


def error_console() -> Console:
    """stderr, never wrapped (soft wrap), no highlighting; colour only on a terminal."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


_LONG_QUOTED = re.compile(r"(?<!\w)'([^'\n]{200,})'(?!\w)|(?<!\w)\"([^\"\n]{200,})\"(?!\w)")
_LONG_NUMBER = re.compile(r"\d{80,}")


def shorten_values(message: str) -> str:
    """A message names a value from a file, it does not echo it: a quoted value
    of 200 characters or more keeps its first 60, a number of 80 digits or more
    its first 20, each with its length (a record may hold a name of a megabyte)."""

    def quoted(match: re.Match[str]) -> str:
        text = match.group(1) if match.group(1) is not None else match.group(2)
        quote = match.group(0)[0]
        return f"{quote}{text[:60]}…{quote} ({len(text):,} characters)"

    def number(match: re.Match[str]) -> str:
        digits = match.group(0)
        return f"{digits[:20]}… ({len(digits):,} digits)"

    return _LONG_NUMBER.sub(number, _LONG_QUOTED.sub(quoted, message))


def print_error(command_path: str, message: str) -> None:
    """``slapjack CMD: message`` as one line on stderr (long values shortened)."""
    text = shorten_values(" ".join(message.split()))
    line = Text.assemble((f"{command_path}:", "bold red"), " ", text)
    error_console().print(line)


def note(message: str) -> None:
    """An informational line on stderr (``wrote FILE``, a run's summary)."""
    error_console().print(Text(message))


# ------------------------------------------------------------------ --version


def _show_version(value: bool) -> None:
    if value:
        from slapjack import __version__

        typer.echo(f"slapjack {__version__}")
        raise typer.Exit()


VersionOption = Annotated[
    bool,
    typer.Option(
        "--version",
        help="Print the version and exit.",
        callback=_show_version,
        is_eager=True,
        expose_value=False,
    ),
]
"""Add ``_version: VersionOption = False`` as a command's last parameter."""


# ------------------------------------------------------------------ help and errors


def _tidy_help(params: Sequence[Any]) -> None:
    """No Python types in ``--help``: flags show nothing; a value option without
    a metavar shows the last word of its long name (``--data-dir`` → ``DIR``);
    an argument shows its name only, ``FILE...`` in the usage line."""
    for param in params:
        if param.param_type_name == "argument":
            _tidy_argument(param)
            continue
        if param.param_type_name != "option" or param.metavar is not None:
            continue
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
        else:
            longs = [o for o in param.opts if o.startswith("--")] or param.opts
            param.metavar = longs[0].lstrip("-").rsplit("-", 1)[-1].upper()


def _tidy_argument(param: Any) -> None:
    # Typer shows an argument's Python type beside its name (``<list[str]>``)
    # and has no setting to leave it out: this one parameter says nothing more.
    name = param.metavar or param.name.upper()
    usage = name if param.required else f"[{name}]"
    if param.nargs != 1:
        usage += "..."
    param.display_type_rich = lambda ctx: None
    param.get_usage_pieces = lambda ctx: [usage]


def _flag_of(exc: Any) -> str | None:
    param = getattr(exc, "param", None)
    if param is None or not getattr(param, "opts", None):
        return None
    longs = [o for o in param.opts if o.startswith("--")]
    return (longs or param.opts)[0]


_PLAIN = {
    "Input should be a valid integer": "expected a whole number",
    "Input should be a valid number": "expected a number",
    "Input should be a valid boolean": "expected true or false",
}


def _given(exc: Any, args: Sequence[str]) -> str | None:
    """The value the command line gave the parameter of ``exc``, if it can be found."""
    opts = getattr(getattr(exc, "param", None), "opts", None) or ()
    given = None  # the last one counts, as for the parser
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if arg in opts and i + 1 < len(args):
            given = args[i + 1]
        elif eq and name in opts:
            given = value
    return given


def _bad_value(exc: Any, args: Sequence[str]) -> str:
    message = str(exc.message).strip().rstrip(".")
    for prefix, plain in _PLAIN.items():
        if message.startswith(prefix):
            message = plain
            given = _given(exc, args)
            if given is not None:
                message += f", got {given!r}"
            break
    flag = _flag_of(exc)
    if flag is None:
        hint = exc.param.get_error_hint() if getattr(exc, "param", None) else None
        return f"{hint}: {message}" if hint else message
    return f"{flag}: {message}"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _stderr_is_terminal() -> bool:
    return error_console().is_terminal


@contextmanager
def _one_style(command_path: Callable[[], str], args: Sequence[str] = ()) -> Iterator[None]:
    """Turn :class:`CommandError` and click's errors into the one style."""
    try:
        yield
    except CommandError as exc:
        print_error(command_path(), exc.message)
        raise typer.Exit(exc.status) from None
    except click_exceptions.UsageError as exc:
        if isinstance(exc, click_exceptions.NoArgsIsHelpError):
            raise
        path = exc.ctx.command_path if exc.ctx is not None else command_path()
        if isinstance(exc, click_exceptions.BadParameter) and not isinstance(
            exc, click_exceptions.MissingParameter
        ):
            print_error(path, _bad_value(exc, args))  # a value, not the command line's shape
        elif _stderr_is_terminal():
            raise  # Typer's usage box
        else:
            message = _lower_first(str(exc.format_message()).strip().rstrip("."))
            print_error(path, f"{message} (see '{path} --help')")
        raise typer.Exit(EXIT_USAGE) from None


class Command(TyperCommand):
    """A ``slapjack`` sub-command: tidy help, errors in the one style."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _tidy_help(self.params)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    def make_context(self, info_name: str | None, args: list[str], **extra: Any) -> Any:
        parent = extra.get("parent")
        prefix = f"{parent.command_path} " if parent is not None else ""
        with _one_style(lambda: f"{prefix}{info_name or self.name}", list(args)):
            return super().make_context(info_name, args, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_style(lambda: str(ctx.command_path)):
            return super().invoke(ctx)


class Group(TyperGroup):
    """The ``slapjack`` command itself: tidy help, errors in the one style."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _tidy_help(self.params)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    def make_context(self, info_name: str | None, args: list[str], **extra: Any) -> Any:
        with _one_style(lambda: str(info_name or self.name), list(args)):
            return super().make_context(info_name, args, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_style(lambda: str(ctx.command_path)):
            return super().invoke(ctx)


class App(typer.Typer):
    """``typer.Typer`` whose commands are :class:`Command` and itself a :class:`Group`."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", Group)
        kwargs.setdefault("context_settings", {"help_option_names": ["-h", "--help"]})
        super().__init__(**kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", Command)
        return super().command(*args, **kwargs)


# ------------------------------------------------------------------ checks


def check_range(flag: str, value: float, low: float, high: float) -> None:
    """``--seats must be from 2 to 10, got 11`` unless ``low <= value <= high``."""
    if not low <= value <= high:
        raise CommandError(f"{flag} must be from {_num(low)} to {_num(high)}, got {_num(value)}")


def _num(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def check_seed(seed: int | None) -> None:
    """Every command takes the same seeds: 0 to 2^64-1."""
    if seed is not None and not 0 <= seed <= SEED_MAX:
        raise CommandError(f"--seed must be from 0 to 2^64-1 ({SEED_MAX}), got {seed}")


def bot_levels(
    spec: str, count: int, noun: str, check: Callable[[str], str | None]
) -> tuple[str, ...]:
    """``--bots``: one level for every one of ``count`` seats, or one per seat,
    comma-separated. ``check(level)`` returns what is wrong with a level, or None."""
    levels = tuple(x.strip() for x in spec.split(","))
    for level in levels:
        problem = check(level)
        if problem is not None:
            raise CommandError(f"--bots: {problem}")
    if len(levels) == 1:
        return levels * count
    if len(levels) != count:
        raise CommandError(
            f"--bots: {count} {noun}s need one level for all of them or {count} levels, "
            f"got {len(levels)}: {spec}"
        )
    return levels


# ------------------------------------------------------------------ output files


STDOUT = "-"
"""The name of standard output for every file option."""


def check_output(flag: str, target: str | None) -> None:
    """Refuse, before any work is done, an output file that cannot be written."""
    if target is None or target == STDOUT:
        return
    path = Path(target)
    if path.is_dir():
        raise CommandError(f"{flag}: {target} is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise CommandError(f"{flag}: no directory {parent}")


def write_output(target: str, write: Callable[[IO[bytes]], None], *, quiet: bool = False) -> None:
    """Write to ``target`` (``-``: standard output); say ``wrote FILE`` on stderr."""
    if target == STDOUT:
        out = sys.stdout.buffer
        write(out)
        out.flush()
        return
    try:
        with open(target, "wb") as fh:
            write(fh)
    except OSError as exc:
        raise CommandError(f"cannot write {target}: {exc.strerror or exc}") from None
    if not quiet:
        note(f"wrote {target}")
