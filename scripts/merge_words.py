#!/usr/bin/env python3
"""Fold keys found in ``web/static/i18n/<lang>.json`` into the one catalogue of words.

The browser's words used to live in ``src/slapjack/web/static/i18n/en.json`` and
``de.json``; they are now entries of ``src/slapjack/texts/words/<lang>.json``
(shared keys as they are, the browser's own under ``web.``). A branch that was
started before the move and added or changed keys in the old files brings them
back at merge time; this script folds them in:

- a key whose text is the same as at ``--base`` (the commit the branches were
  started from) is left alone: the catalogue already has it, maybe in a wording
  chosen since;
- a key that is new, or whose text differs from ``--base``, is written to the
  catalogue (``web.<key>``, or the shared key if it is one: ``error.*``,
  ``opt.*``, ``preset.*``, ...);
- a key the branch removed is reported (and removed, if it is a ``web.`` key).

The terminal game's words used to be the ``TEXTS`` dict of
``src/slapjack/tui/i18n.py``; ``--tui FILE`` folds such a file the same way
(its keys become ``tui.<key>``; ``srv.<code>`` becomes ``error.<code>``,
``val.<option>.<value>`` becomes ``opt.<option>.<value>``).

Run from the repository root during or after the merge, then delete the old
files (``--remove`` does it) and run ``pytest tests/texts/test_words.py``::

    python scripts/merge_words.py            # report and write
    python scripts/merge_words.py --dry-run  # report only
    python scripts/merge_words.py --remove   # write, then delete web/static/i18n
    git show web:src/slapjack/tui/i18n.py > /tmp/old_i18n.py
    python scripts/merge_words.py --tui /tmp/old_i18n.py
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

LANGS = ("en", "de")
BASE = "1a4539a"
"""The main commit the helpers' branches were started from (before the move)."""
OLD = "src/slapjack/web/static/i18n"
NEW = "src/slapjack/texts/words"
SHARED = ("lang.", "key.", "unit.", "error.", "game.", "preset.", "opt.", "bot.", "level.",
          "rank.", "suit.", "card.", "list.")  # fmt: skip
"""Key families the browser shares with the other users of the words."""


def target_key(key: str, catalogue: dict[str, str]) -> str:
    """Where a browser key lives in the catalogue."""
    if key in catalogue or key.startswith(SHARED):
        return key
    return f"web.{key}"


OLD_TUI = "src/slapjack/tui/i18n.py"
TUI_SHARED = ("bot.", "level.", "key.", "error.", "opt.")


def tui_target_key(key: str, catalogue: dict[str, str]) -> str:
    """Where a key of the old ``tui/i18n.py`` lives in the catalogue."""
    if key.startswith("srv.") and key != "srv.other":
        return "error." + key.removeprefix("srv.")
    if key.startswith("val."):
        return "opt." + key.removeprefix("val.")
    if key.startswith(TUI_SHARED) or key in ("end.place", "end.cards", "end.jacks", "end.wrong"):
        return key
    return f"tui.{key}"


def git_show(root: Path, base: str, path: str) -> str | None:
    try:
        return subprocess.run(
            ["git", "-C", str(root), "show", f"{base}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        print(f"note: no {path} at {base}: every key counts as new", file=sys.stderr)
        return None


def base_table(root: Path, base: str, lang: str) -> dict[str, str]:
    text = git_show(root, base, f"{OLD}/{lang}.json")
    data: dict[str, str] = json.loads(text) if text else {}
    return data


def tui_tables(source: str | None) -> dict[str, dict[str, str]]:
    """``{lang: {key: text}}`` from the ``TEXTS`` literal of an old ``tui/i18n.py``."""
    out: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    if not source:
        return out
    for node in ast.walk(ast.parse(source)):
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "TEXTS" and node.value is not None:
            texts = ast.literal_eval(node.value)
            for key, entry in texts.items():
                for lang in LANGS:
                    if lang in entry:
                        out[lang][key] = entry[lang]
    return out


def fold(
    old: dict[str, str],
    base: dict[str, str],
    catalogue: dict[str, str],
    target_key: Callable[[str, dict[str, str]], str] = target_key,
) -> tuple[dict[str, str], list[str]]:
    """The catalogue with ``old``'s new and changed keys; and what was done."""
    out = dict(catalogue)
    report: list[str] = []
    for key, text in old.items():
        if base.get(key) == text:
            continue
        target = target_key(key, out)
        if out.get(target) == text:
            continue
        verb = "changed" if target in out else "added"
        report.append(
            f"{verb} {target}: {text!r}" + (f" (was {out[target]!r})" if verb == "changed" else "")
        )
        out[target] = text
    for key in base.keys() - old.keys():
        target = target_key(key, out)
        if target.startswith(("web.", "tui.")) and target in out:
            del out[target]
            report.append(f"removed {target}")
        else:
            report.append(f"note: the branch dropped {key}; {target} stays (shared)")
    return dict(sorted(out.items())), report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root")
    parser.add_argument("--base", default=BASE, help=f"commit before the move (default {BASE})")
    parser.add_argument("--dry-run", action="store_true", help="report only, write nothing")
    parser.add_argument("--remove", action="store_true", help=f"delete {OLD} afterwards")
    parser.add_argument("--tui", type=Path, help=f"an old-style {OLD_TUI} to fold (TEXTS)")
    args = parser.parse_args(argv)
    old_dir, new_dir = args.root / OLD, args.root / NEW
    if not old_dir.is_dir() and args.tui is None:
        print(f"nothing to fold: no {OLD}")
        return 0
    tui_old = tui_tables(args.tui.read_text(encoding="utf-8")) if args.tui else None
    tui_base = tui_tables(git_show(args.root, args.base, OLD_TUI)) if args.tui else None
    missing: set[str] = set()
    added: dict[str, set[str]] = {}
    for lang in LANGS:
        words_path = new_dir / f"{lang}.json"
        catalogue = json.loads(words_path.read_text(encoding="utf-8"))
        merged, report = dict(catalogue), []
        path = old_dir / f"{lang}.json"
        if path.is_file():
            old = json.loads(path.read_text(encoding="utf-8"))
            merged, report = fold(old, base_table(args.root, args.base, lang), merged)
        if tui_old is not None and tui_base is not None:
            merged, more = fold(tui_old[lang], tui_base[lang], merged, tui_target_key)
            report += [f"(tui) {line}" for line in more]
        for line in report:
            print(f"{lang}: {line}")
        added[lang] = set(merged) - set(catalogue)
        if not args.dry_run:
            text = json.dumps(merged, ensure_ascii=False, indent=1) + "\n"
            words_path.write_text(text, encoding="utf-8")
    if len(added) == 2:
        missing = added["en"] ^ added["de"]
    for key in sorted(missing):
        print(f"warning: {key} was added in one language only", file=sys.stderr)
    if args.remove and not args.dry_run and old_dir.is_dir():
        shutil.rmtree(old_dir)
        print(f"removed {OLD}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
