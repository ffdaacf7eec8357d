"""The one catalogue of words (``slapjack/texts/words``): complete in both
languages, every key a user reads exists, and no UI carries words of its own.

The scans are deliberately simple (the AST of the terminal game's Python, the
text nodes and text attributes of the browser's HTML, string literals of its
JavaScript); what they let through on purpose is in the allow-lists below,
each with its reason.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from slapjack.core import PRESETS, option_choices
from slapjack.core.rules import OPTIONS
from slapjack.protocol import BOT_LEVELS, ErrorCode
from slapjack.texts import SUPPORTED_LANGS, catalog
from slapjack.texts.words import (
    NAMESPACES,
    WordsError,
    browser_words,
    is_shared,
    placeholders,
    word,
    words,
)
from slapjack.tui.i18n import has, tr
from slapjack.tui.remote import KNOWN_ERRORS

ROOT = Path(__file__).parents[2]
SRC = ROOT / "src" / "slapjack"
TUI = SRC / "tui"
STATIC = SRC / "web" / "static"
LETTERS = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}")


# ------------------------------------------------------------- the catalogue


def test_both_languages_have_every_key_with_the_same_placeholders() -> None:
    en, de = words("en"), words("de")
    assert len(en) > 600
    assert set(en) == set(de), sorted(set(en) ^ set(de))
    for key, text in en.items():
        assert re.fullmatch(r"[a-z][\w-]*(\.[\w>-]+)*", key), key
        assert text.strip() and de[key].strip(), key
        assert text == text.strip() and de[key] == de[key].strip(), key
        assert placeholders(text) == placeholders(de[key]), key


def test_the_files_are_sorted_and_hold_only_texts() -> None:
    """One layout, so that merges of added keys stay small and readable."""
    for lang in SUPPORTED_LANGS:
        path = SRC / "texts" / "words" / f"{lang}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        assert list(data) == sorted(data), lang
        assert all(isinstance(v, str) for v in data.values())
        assert (
            path.read_text(encoding="utf-8")
            == json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        )


def test_a_ui_word_never_shadows_a_shared_one() -> None:
    """``tui.x`` next to a shared ``x`` would make ``tr(lang, "x")`` ambiguous;
    ``web.x`` next to ``x`` would collide in the browser's table."""
    en = words("en")
    for key in en:
        ns, _, rest = key.partition(".")
        if ns in ("tui", "web"):
            assert rest not in en, f"{key} and {rest}"
    assert len(browser_words("en")) == sum(1 for k in en if is_shared(k) or k.startswith("web."))


def test_a_missing_word_is_a_typed_error() -> None:
    assert word("de", "opt.tie") == "Genauer Gleichstand"
    assert word("en", "unit.ms", n=212) == "212 ms"
    with pytest.raises(WordsError) as err:
        word("en", "no.such.word")
    assert err.value.code == "unknown_word"


@pytest.mark.parametrize("lang", SUPPORTED_LANGS)
def test_shared_families_are_complete(lang: str) -> None:
    """The words every user builds from data: options, presets, bots, errors, cards."""
    table = words(lang)
    need = {f"game.{g}" for g in ("slapjack", "irish-snap")}
    need |= {f"preset.{p}" for p in PRESETS} | {f"preset.{p}.help" for p in PRESETS}
    for option in OPTIONS:
        need |= {f"opt.{option.name}", f"opt.{option.name}.help"}
        values = option.values or ("off", "on")
        need |= {f"opt.{option.name}.{v}" for v in values}
        need |= {f"opt.{option.name}.{v}.help" for v in values}
        need |= {f"rules.value.{option.name}.{v}" for v in values}
    need |= {f"bot.{b}" for b in BOT_LEVELS} | {f"level.{b}" for b in BOT_LEVELS}
    need |= {f"error.{c}" for c in KNOWN_ERRORS}
    assert {f"error.{c}" for c in KNOWN_ERRORS} <= {f"error.{c.value}" for c in ErrorCode}
    ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    need |= {f"rank.{r}" for r in ranks} | {f"rank.short.{r}" for r in ranks}
    need |= {f"suit.{s}" for s in "CDHS"} | {"card.spoken", "list.and", "unit.ms"}
    missing = sorted(need - set(table))
    assert not missing, missing


def test_the_three_users_read_the_same_words() -> None:
    """The examples the copies used to disagree on now have one wording."""
    for lang in SUPPORTED_LANGS:
        cat = catalog(lang)
        web = browser_words(lang)
        for option in OPTIONS:
            assert cat.option_labels[option.name] == web[f"opt.{option.name}"]
            for value in option_choices(option.name):
                label = cat.value_labels[option.name][value]
                assert label == web[f"opt.{option.name}.{value}"]
                assert tr(lang, f"opt.{option.name}.{value}") == label
        for name in PRESETS:
            assert cat.preset_labels[name] == web[f"preset.{name}"]
        for level in BOT_LEVELS:
            assert tr(lang, f"bot.{level}") == web[f"bot.{level}"]
    assert word("en", "opt.after_jack") == "After a won Jack"
    assert word("en", "opt.tie.split") == "Share the pile"
    assert word("en", "opt.say_it") == word("en", "preset.say-it") == "Say it!"


# ------------------------------------------------------ the terminal game


def _tui_sources() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(TUI.rglob("*.py"))]


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


KEY_TAKERS = {"tr", "Note", "Notice", "note"}
"""Calls whose first text argument is a word's key (``tr(lang, key)``, ``Note(key)``)."""


def _keys_used_by_the_tui() -> set[str]:
    keys: set[str] = set()
    for _path, tree in _tui_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node) in KEY_TAKERS:
                args = node.args[1:] if _name(node) == "tr" else node.args[:1]
                for arg in args[:1]:
                    for sub in ast.walk(arg):  # key = "a" if x else "b" counts both
                        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                            keys.add(sub.value)
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "key" for t in node.targets
            ):
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                        keys.add(sub.value)
    return {k for k in keys if k and not k.startswith("_") and not k.endswith(".")}


def test_every_key_the_terminal_game_uses_exists() -> None:
    used = _keys_used_by_the_tui()
    assert len(used) > 100
    missing = sorted(k for k in used if not has(k))
    assert not missing, missing


def test_every_word_of_the_terminal_game_is_used() -> None:
    """No dead ``tui.*`` words: each is named in the terminal game's source, or
    built there from a named prefix (``f"ev.out.{reason}"``) or a suffix
    (``key + "_guess"``)."""
    literals: set[str] = set()
    prefixes: set[str] = set()
    for _path, tree in _tui_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                first = node.values[0] if node.values else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    prefixes.add(first.value)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
    suffixes = {s for s in literals if s.startswith("_")}
    unused = []
    for key in words("en"):
        if not key.startswith("tui."):
            continue
        own = key.removeprefix("tui.")
        bases = {own} | {own.removesuffix(s) for s in suffixes if own.endswith(s)}
        if bases & literals or any(p and own.startswith(p) for p in prefixes if "." in p):
            continue
        unused.append(key)
    assert not unused, unused


TEXT_CALLS = {"Label", "Static", "Button", "Text", "append", "notify", "add_column"}
"""Widgets and rich calls whose first argument is shown as it is."""
TEXT_ATTRS = {"border_title", "border_subtitle", "title", "sub_title", "tooltip", "placeholder"}
TUI_ALLOWED = {
    "slapjack tui --join ",  # a command line to type: command and flags are not words
    " --token ",
    "Slapjack",  # the game's name, the same in every language (App.TITLE)
}


TEXT_BUILDERS = {"Text", "assemble", "Content", "styled", "join"}
"""Calls that make shown text of their positional arguments (the first only for
``Text``/``Content``: the second is a style)."""


def _literal_words(node: ast.AST) -> list[ast.Constant]:
    """String constants with letters that ``node`` shows as they are.

    Left out: anything another call returns (``tr()`` gives words, a
    ``SeatSpec(...)`` is data), subscripts (``helps[name]["label"]``), dicts,
    styles, and the values of ``(label, value)`` pairs and comprehensions."""
    out: list[ast.Constant] = []
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str) and LETTERS.search(node.value):
            out.append(node)
    elif isinstance(node, ast.Call):
        name = _name(node)
        if name in ("Text", "Content", "styled"):
            out += _literal_words(node.args[0]) if node.args else []
        elif name in TEXT_BUILDERS:
            for arg in node.args:
                out += _literal_words(arg)
    elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
        out += _literal_words(node.elts[0])  # ("text", "style") and (label, value) pairs
    elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        out += _literal_words(node.elt)
    elif isinstance(node, (ast.List, ast.Tuple, ast.JoinedStr, ast.BinOp, ast.IfExp)):
        for child in ast.iter_child_nodes(node):
            if not (isinstance(node, ast.IfExp) and child is node.test):
                out += _literal_words(child)
    elif isinstance(node, ast.FormattedValue):
        out += _literal_words(node.value)
    return out


def test_no_widget_of_the_terminal_game_shows_a_literal_word() -> None:
    found: list[str] = []
    for path, tree in _tui_sources():
        for node in ast.walk(tree):
            shown: list[ast.AST] = []
            if isinstance(node, ast.Call):
                name = _name(node)
                if name in TEXT_CALLS and node.args:
                    shown.append(node.args[0])
                if name == "notify":
                    shown += [k.value for k in node.keywords if k.arg == "title"]
                if name in ("Input", "Select", "FormSelect"):
                    shown += [k.value for k in node.keywords if k.arg == "placeholder"]
                if name in ("Select", "FormSelect") and node.args:
                    shown.append(node.args[0])  # (label, value) pairs: the labels
                if name == "Binding":
                    hidden = any(
                        k.arg == "show" and isinstance(k.value, ast.Constant) and not k.value.value
                        for k in node.keywords
                    )
                    if not hidden:
                        shown += node.args[2:3]
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr in TEXT_ATTRS:
                        shown.append(node.value)
            for part in shown:
                for const in _literal_words(part):
                    if const.value not in TUI_ALLOWED:
                        rel = path.relative_to(SRC)
                        found.append(f"{rel}:{const.lineno}: {const.value!r}")
    assert not found, "\n".join(found)


def test_the_scan_finds_a_literal_word() -> None:
    """The scan above is not blind: a hand-written label is caught."""
    tree = ast.parse('Label("Players")\nLabel(tr(lang, "players"))\nx.border_title = "Log"')
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n) == "Label"]
    assert [c.value for call in calls for c in _literal_words(call.args[0])] == ["Players"]


# ------------------------------------------------------------ the browser


class _TextNodes(HTMLParser):
    """Text nodes and text attributes of a page that no ``data-i18n*`` covers."""

    VOID = frozenset({"meta", "link", "input", "br", "img", "hr", "source"})
    ATTRS = ("placeholder", "title", "aria-label", "alt")

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for attr in self.ATTRS:
            if LETTERS.search(a.get(attr) or "") and f"data-i18n-{attr}" not in a:
                self.found.append(f"{self.getpos()[0]}: <{tag} {attr}={a[attr]!r}>")
        if tag not in self.VOID:
            self.stack.append((tag, "data-i18n" in a))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        inside = [t for t, _ in self.stack]
        if not LETTERS.search(data) or any(i for _, i in self.stack):
            return
        if inside and inside[-1] in ("script", "style"):
            return
        self.found.append(f"{self.getpos()[0]}: {data.strip()!r} in <{'><'.join(inside[-2:])}>")


def html_literals(text: str) -> list[str]:
    parser = _TextNodes()
    parser.feed(text)
    return parser.found


HTML_ALLOWED: set[str] = set()
"""Every text node of the pages is filled from the words (``data-i18n``)."""


def test_the_pages_have_no_text_outside_the_words() -> None:
    found = []
    for page in sorted(STATIC.glob("*.html")):
        for item in html_literals(page.read_text(encoding="utf-8")):
            if item.split(": ", 1)[1] not in HTML_ALLOWED:
                found.append(f"{page.name}:{item}")
    assert not found, "\n".join(found)
    # the scan is not blind
    assert html_literals('<p data-i18n="a">x</p><p>Some words</p><input title="A tip">') == [
        "1: 'Some words' in <p>",
        "1: <input title='A tip'>",
    ]


JS_ALLOWED = {
    # cards.js: the card faces' SVG font attributes (markup, not words)
    "font-family='Georgia, &quot;Times New Roman&quot;, serif' font-weight='700'",
    "Slapjack",  # the game's name in the header's brand mark, the same in every language
    "Escape",  # KeyboardEvent.key values the pages compare with, not words
    "Tab",
    "Enter",
}
_JS_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`((?:[^`\\\n]|\\.)*)`')


def js_literals(code: str) -> list[str]:
    """String literals that read like words for a person: a capitalised word,
    or words with sentence punctuation (keys, CSS classes and ids do not)."""
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    code = re.sub(r"(?m)^\s*//.*$", "", code)
    out = []
    for m in _JS_STRING.finditer(code):
        s = next(g for g in m.groups() if g is not None)
        s = re.sub(r"\$\{[^}]*\}", " ", s)  # template holes are data
        prose = re.search(r"\b[A-ZÄÖÜ][a-zäöüß]+\b", s) or re.search(
            r"[A-Za-z]{3,}[.!?:,] +[A-Za-z]", s
        )
        if (prose and not re.fullmatch(r"[\w./-]*", s.strip())) or re.fullmatch(r"[A-Z][a-z]+", s):
            out.append(s)
    return out


def test_the_browser_scripts_have_no_words_of_their_own() -> None:
    found = []
    for path in sorted((STATIC / "js").glob("*.js")):
        for s in js_literals(path.read_text(encoding="utf-8")):
            if s not in JS_ALLOWED and not s.startswith(
                ("(prefers-", "(pointer:")
            ):  # media queries
                found.append(f"{path.name}: {s!r}")
    assert not found, "\n".join(found)
    assert js_literals('h("p", {}, "Slap again!"); t("room.slap"); el.className = "btn small"') == [
        "Slap again!"
    ]


def test_the_browser_gets_its_words_from_the_catalogue() -> None:
    """The browser's old tables are gone; ``i18n.js`` loads ``/api/words/<lang>``."""
    assert not (STATIC / "i18n").exists()
    source = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    assert "fetch(`/api/words/${l}`)" in source
    assert NAMESPACES == ("tui", "web", "rules")
    table = browser_words("de")
    assert not any(k.startswith(("tui.", "web.", "rules.intro.", "rules.decision.")) for k in table)
    assert table["room.slap"] == words("de")["web.room.slap"]


# ------------------------------------------------------- the merge script


def test_the_merge_script_folds_keys_added_on_other_branches(tmp_path: Path) -> None:
    """A branch that added keys to the old web/static/i18n files: the script
    puts the new and changed ones into the catalogue and leaves the rest."""
    root = tmp_path
    old, new = root / "src/slapjack/web/static/i18n", root / "src/slapjack/texts/words"
    old.mkdir(parents=True)
    new.mkdir(parents=True)
    base = {"room.slap": "Slap!", "opt.tie": "A dead heat", "room.gone_key": "Gone"}
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for lang in SUPPORTED_LANGS:
        (old / f"{lang}.json").write_text(json.dumps(base), encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    rev = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    catalogue = {"opt.tie": "Exact tie", "web.room.gone_key": "Gone", "web.room.slap": "Slap!"}
    for lang in SUPPORTED_LANGS:
        (new / f"{lang}.json").write_text(json.dumps(catalogue), encoding="utf-8")
        branch = {"room.slap": "Slap it!", "opt.tie": "A dead heat", "error.bad_name": f"{lang}!"}
        (old / f"{lang}.json").write_text(json.dumps(branch), encoding="utf-8")
    script = ROOT / "scripts" / "merge_words.py"
    run = subprocess.run(
        [sys.executable, str(script), "--root", str(root), "--base", rev, "--remove"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert not old.exists()
    merged = json.loads((new / "de.json").read_text(encoding="utf-8"))
    assert merged == {
        "error.bad_name": "de!",  # new: a shared family keeps its name
        "opt.tie": "Exact tie",  # unchanged on the branch: the catalogue's wording stays
        "web.room.slap": "Slap it!",  # changed on the branch: taken
    }  # web.room.gone_key: removed on the branch
    assert "added error.bad_name" in run.stdout and "removed web.room.gone_key" in run.stdout


def test_the_merge_script_folds_an_old_terminal_texts_file(tmp_path: Path) -> None:
    """``--tui``: a branch's ``TEXTS`` dict of the old ``tui/i18n.py``."""
    root = tmp_path
    (root / "src/slapjack/tui").mkdir(parents=True)
    new = root / "src/slapjack/texts/words"
    new.mkdir(parents=True)
    old_file = root / "src/slapjack/tui/i18n.py"
    old_file.write_text(
        'TEXTS = {"log": {"en": "Log", "de": "Verlauf"}, "srv.x": {"en": "X", "de": "X"}}\n',
        encoding="utf-8",
    )
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    for lang in SUPPORTED_LANGS:
        (new / f"{lang}.json").write_text(json.dumps({"tui.log": "Log"}), encoding="utf-8")
    branch = root / "branch_i18n.py"
    branch.write_text(
        "TEXTS: dict = {\n"
        '    "log": {"en": "Log", "de": "Verlauf"},\n'
        '    "srv.x": {"en": "X", "de": "X"},\n'
        '    "srv.bad_name": {"en": "Bad name", "de": "Falscher Name"},\n'
        '    "hint": {"en": "A hint", "de": "Ein Tipp"},\n'
        "}\n",
        encoding="utf-8",
    )
    script = ROOT / "scripts" / "merge_words.py"
    run = subprocess.run(
        [sys.executable, str(script), "--root", str(root), "--base", "HEAD", "--tui", str(branch)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    merged = json.loads((new / "de.json").read_text(encoding="utf-8"))
    assert merged == {"error.bad_name": "Falscher Name", "tui.hint": "Ein Tipp", "tui.log": "Log"}


EVENT_WORDS_MOST = 62
"""Characters of an event's line besides its names and numbers: the party's
line under the table shows it on three lines of about 36 characters on a
phone (360 px, "End party" beside it), with up to three names ("Bot 4
(gemütlich)", 17 characters) and a count in it; tests/browser/test_layout.py
renders every one there."""


@pytest.mark.parametrize("lang", SUPPORTED_LANGS)
def test_an_event_line_fits_two_lines_of_a_phone(lang: str) -> None:
    long = {
        k: len(re.sub(r"\{\w+\}", "", v)) for k, v in words(lang).items() if k.startswith("web.ev.")
    }
    assert long, "no event words found"
    too_long = {k: n for k, n in long.items() if n > EVENT_WORDS_MOST}
    assert not too_long, f"event lines too long for the party's line on a phone: {too_long}"
