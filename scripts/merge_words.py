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

Run from the repository root during or after the merge, then delete the old
files (``--remove`` does it) and run ``pytest tests/texts/test_words.py``::

    python scripts/merge_words.py            # report and write
    python scripts/merge_words.py --dry-run  # report only
    python scripts/merge_words.py --remove   # write, then delete web/static/i18n
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
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


def base_table(root: Path, base: str, lang: str) -> dict[str, str]:
    try:
        text = subprocess.run(
            ["git", "-C", str(root), "show", f"{base}:{OLD}/{lang}.json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        print(f"note: no {OLD}/{lang}.json at {base}: every key counts as new", file=sys.stderr)
        return {}
    data: dict[str, str] = json.loads(text)
    return data


def fold(
    old: dict[str, str], base: dict[str, str], catalogue: dict[str, str]
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
        if target.startswith("web.") and target in out:
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
    args = parser.parse_args(argv)
    old_dir, new_dir = args.root / OLD, args.root / NEW
    if not old_dir.is_dir():
        print(f"nothing to fold: no {OLD}")
        return 0
    missing: set[str] = set()
    added: dict[str, set[str]] = {}
    for lang in LANGS:
        path = old_dir / f"{lang}.json"
        if not path.is_file():
            continue
        old = json.loads(path.read_text(encoding="utf-8"))
        words_path = new_dir / f"{lang}.json"
        catalogue = json.loads(words_path.read_text(encoding="utf-8"))
        merged, report = fold(old, base_table(args.root, args.base, lang), catalogue)
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
    if args.remove and not args.dry_run:
        shutil.rmtree(old_dir)
        print(f"removed {OLD}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
