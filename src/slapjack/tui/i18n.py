"""Every text the terminal game shows, in English and German.

Texts are looked up by key and formatted with ``str.format``; card faces and
suit names are localised here too (German decks say B, D, K for Jack, Queen,
King). The rules themselves come from :mod:`slapjack.texts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from slapjack.core import RANKS, card_symbol, rank_of, suit_of
from slapjack.texts import check_lang, locale_language

LANGS: Final = ("en", "de")

_RANKS_DE: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B", "D", "K")
_SUIT_SYMBOLS: Final = "♣♦♥♠"
_SUIT_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "en": ("clubs", "diamonds", "hearts", "spades"),
    "de": ("Kreuz", "Karo", "Herz", "Pik"),
}
_RANK_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "en": (
        "Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
        "Jack", "Queen", "King",
    ),
    "de": (
        "Ass", "Zwei", "Drei", "Vier", "Fünf", "Sechs", "Sieben", "Acht", "Neun", "Zehn",
        "Bube", "Dame", "König",
    ),
}  # fmt: skip

TEXTS: Final[Mapping[str, Mapping[str, str]]] = {
    # ------------------------------------------------------------ start screen
    "title": {"en": "Slapjack", "de": "Slapjack"},
    "new_game": {"en": "New game", "de": "Neues Spiel"},
    "game": {"en": "Game", "de": "Spiel"},
    "preset": {"en": "Preset", "de": "Regelsatz"},
    "seats": {"en": "Seats", "de": "Plätze"},
    "turn_timer": {"en": "Turn timer (s, 0 = off)", "de": "Zugzeit (s, 0 = aus)"},
    "time_limit": {"en": "Time limit (s, 0 = off)", "de": "Zeitlimit (s, 0 = aus)"},
    "say_it": {"en": "Say it: call “Slapjack!”", "de": "Ansagen: „Slapjack!“ rufen"},
    "col.seat": {"en": "#", "de": "#"},
    "col.name": {"en": "Name", "de": "Name"},
    "col.player": {"en": "Player", "de": "Spieler"},
    "col.slap": {"en": "Slap", "de": "Schlag"},
    "col.flip": {"en": "Flip", "de": "Aufdecken"},
    "col.call": {"en": "Call", "de": "Ruf"},
    "human": {"en": "Human", "de": "Mensch"},
    "bot.beginner": {"en": "Bot: beginner", "de": "Bot: Anfänger"},
    "bot.casual": {"en": "Bot: casual", "de": "Bot: Hobby"},
    "bot.pro": {"en": "Bot: pro", "de": "Bot: Profi"},
    "bot.matched": {"en": "Bot: matched", "de": "Bot: ebenbürtig"},
    "bot.perfect": {"en": "Bot: perfect", "de": "Bot: perfekt"},
    "level.beginner": {"en": "beginner", "de": "Anfänger"},
    "level.casual": {"en": "casual", "de": "Hobby"},
    "level.pro": {"en": "pro", "de": "Profi"},
    "level.matched": {"en": "matched", "de": "ebenbürtig"},
    "level.perfect": {"en": "perfect", "de": "perfekt"},
    "start": {"en": "Start (Enter)", "de": "Start (Enter)"},
    "group.rules": {"en": "Rules", "de": "Regeln"},
    "group.seats": {"en": "Seats and keys", "de": "Plätze und Tasten"},
    "rules_button": {"en": "Rules (?)", "de": "Regeln (?)"},
    "start_hint": {
        "en": "Space flips for whoever is on turn · Esc quits",
        "de": "Leertaste deckt für den auf, der dran ist · Esc beendet",
    },
    # ---------------------------------------------------------------- options
    "opt.after_jack": {"en": "After a Jack", "de": "Nach einem Buben"},
    "opt.wrong_slap": {"en": "Wrong slap", "de": "Fehlschlag"},
    "opt.empty_stack": {"en": "Out of cards", "de": "Keine Karten mehr"},
    "opt.tie": {"en": "Exact tie", "de": "Gleichstand"},
    "opt.irish_goal": {"en": "Goal", "de": "Ziel"},
    "val.after_jack.left_of_winner": {
        "en": "left of the winner flips",
        "de": "links vom Gewinner deckt auf",
    },
    "val.after_jack.continue": {
        "en": "play continues in order",
        "de": "es geht der Reihe nach weiter",
    },
    "val.wrong_slap.pay_player": {
        "en": "pay a card to the card's player",
        "de": "eine Karte an den Aufdecker",
    },
    "val.wrong_slap.pay_pile": {
        "en": "pay a card under the pile",
        "de": "eine Karte unter den Stapel",
    },
    "val.empty_stack.next_jack": {
        "en": "win the next Jack or out",
        "de": "nächsten Buben gewinnen oder raus",
    },
    "val.empty_stack.until_turn": {
        "en": "out at your next turn",
        "de": "raus beim nächsten Zug",
    },
    "val.tie.reslap": {"en": "slap again", "de": "nochmal schlagen"},
    "val.tie.split": {"en": "split the pile", "de": "Stapel teilen"},
    "val.irish_goal.avoid_last": {
        "en": "don't be the last with cards",
        "de": "nicht der Letzte mit Karten sein",
    },
    "val.irish_goal.first_out": {
        "en": "first out and one more slap wins",
        "de": "zuerst leer plus ein Treffer gewinnt",
    },
    # ------------------------------------------------------------ config errors
    "err.names_unique": {
        "en": "Names must be unique: {name} appears twice.",
        "de": "Namen müssen verschieden sein: {name} kommt doppelt vor.",
    },
    "err.name_blank": {
        "en": "Seat {seat} needs a name.",
        "de": "Platz {seat} braucht einen Namen.",
    },
    "err.name_long": {
        "en": "The name of seat {seat} is longer than {max} characters.",
        "de": "Der Name auf Platz {seat} ist länger als {max} Zeichen.",
    },
    "err.key_one": {
        "en": "{name}: a key is one character, not “{key}”.",
        "de": "{name}: eine Taste ist ein Zeichen, nicht „{key}“.",
    },
    "err.key_reserved": {
        "en": "{name}: “{key}” is reserved (Space flips, ? rules, S saves).",
        "de": "{name}: „{key}“ ist belegt (Leertaste deckt auf, ? Regeln, S speichert).",
    },
    "err.key_twice": {
        "en": "The key “{key}” is used twice ({first} and {second}).",
        "de": "Die Taste „{key}“ ist doppelt belegt ({first} und {second}).",
    },
    "err.key_missing": {
        "en": "{name} needs a slap key.",
        "de": "{name} braucht eine Schlag-Taste.",
    },
    "err.seats": {
        "en": "A table has 2 to 10 seats.",
        "de": "Ein Tisch hat 2 bis 10 Plätze.",
    },
    "err.number": {
        "en": "{what}: a whole number from {low} to {high}, please.",
        "de": "{what}: bitte eine ganze Zahl von {low} bis {high}.",
    },
    "err.rules": {"en": "Rules: {message}", "de": "Regeln: {message}"},
    # ------------------------------------------------------------------ table
    "players": {"en": "Players", "de": "Spieler"},
    "log": {"en": "Log", "de": "Verlauf"},
    "result": {"en": "Last result", "de": "Letztes Ergebnis"},
    "cards": {"en": "cards", "de": "Karten"},
    "out": {"en": "out", "de": "raus"},
    "safe": {"en": "safe", "de": "sicher"},
    "empty": {"en": "empty", "de": "leer"},
    "on_turn": {"en": "on turn", "de": "am Zug"},
    "pile": {"en": "Pile: {count}", "de": "Stapel: {count}"},
    "pile_hidden": {
        "en": "Pile: {count} ({hidden} face down)",
        "de": "Stapel: {count} ({hidden} verdeckt)",
    },
    "pile_empty": {"en": "The pile is empty", "de": "Der Stapel ist leer"},
    "call_now": {"en": "Call: {rank}", "de": "Ansage: {rank}"},
    "next_call": {"en": "Next call: {rank}", "de": "Nächste Ansage: {rank}"},
    "match": {"en": "MATCH!", "de": "TREFFER!"},
    "time_left": {"en": "Time {clock}", "de": "Zeit {clock}"},
    "seed": {"en": "seed {seed}", "de": "Seed {seed}"},
    "turn_of": {"en": "{name} to flip", "de": "{name} deckt auf"},
    "turn_keys": {
        "en": "{name}: {key} or Space to flip",
        "de": "{name}: {key} oder Leertaste zum Aufdecken",
    },
    "turn_space": {"en": "{name}: Space to flip", "de": "{name}: Leertaste zum Aufdecken"},
    "slap_now": {"en": "Slap!", "de": "Schlagen!"},
    "reslap_now": {
        "en": "Tie! {names}: slap again!",
        "de": "Gleichstand! {names}: nochmal schlagen!",
    },
    "waiting": {"en": "…", "de": "…"},
    "no_reaction": {"en": "—", "de": "—"},
    "saved": {"en": "Game saved to {path}", "de": "Spiel gespeichert in {path}"},
    "saved.title": {"en": "Saved", "de": "Gespeichert"},
    "saved.title_failed": {"en": "Not saved", "de": "Nicht gespeichert"},
    "saved.toast": {
        "en": "The record is in\n{path}\nReplay it with: slapjack replay FILE",
        "de": "Der Spielbericht liegt in\n{path}\nNachspielen mit: slapjack replay DATEI",
    },
    "save_failed": {"en": "Could not save: {error}", "de": "Speichern fehlgeschlagen: {error}"},
    "false_start": {
        "en": "{name} slapped after {ms}: too soon to be a reaction, counts as a guess",
        "de": "{name} schlug nach {ms}: zu schnell für eine Reaktion, zählt als geraten",
    },
    "guess": {"en": "guess", "de": "geraten"},
    "idle_flip": {
        "en": "Time's up: flipped for {name}",
        "de": "Zeit um: für {name} aufgedeckt",
    },
    "game_start": {
        "en": "{title}, {count} players",
        "de": "{title}, {count} Spieler",
    },
    "race.status": {"en": "Slap now! {keys}", "de": "Jetzt schlagen! {keys}"},
    "race.status_none": {
        "en": "Race open: waiting for the slaps",
        "de": "Rennen offen: warte auf die Schläge",
    },
    "race.open": {"en": "SLAP!", "de": "SCHLAGEN!"},
    "race.slapped": {"en": "Slapped: {names}", "de": "Geschlagen: {names}"},
    "race.reslap": {
        "en": "Tie! {names}: slap again!",
        "de": "Gleichstand! {names}: nochmal schlagen!",
    },
    "race.title": {"en": " Race open ", "de": " Rennen offen "},
    "table": {"en": "Table", "de": "Tisch"},
    "no_result": {
        "en": "No race yet: slap when a Jack shows",
        "de": "Noch kein Rennen: schlag zu, wenn ein Bube kommt",
    },
    "no_result_irish": {
        "en": "No match yet: slap when the card matches the call",
        "de": "Noch kein Treffer: schlag zu, wenn die Karte zur Ansage passt",
    },
    "too_small": {
        "en": "This terminal is {width}×{height}; Slapjack needs at least {min_width}×{min_height}.",
        "de": "Dieses Terminal ist {width}×{height} groß; Slapjack braucht mindestens {min_width}×{min_height}.",
    },
    "too_small.hint": {
        "en": "Please make the window larger (or the font smaller).",
        "de": "Bitte das Fenster vergrößern (oder die Schrift verkleinern).",
    },
    "too_small.paused": {
        "en": "The game is paused until then. Ctrl+Q quits.",
        "de": "Bis dahin ist das Spiel angehalten. Strg+Q beendet.",
    },
    "too_small.online": {
        "en": "The online game goes on meanwhile. Ctrl+Q quits.",
        "de": "Das Online-Spiel läuft solange weiter. Strg+Q beendet.",
    },
    "too_small.quit": {"en": "Ctrl+Q quits.", "de": "Strg+Q beendet."},
    "key.space": {"en": "Space", "de": "Leertaste"},
    "call_hint": {
        "en": "slap + call",
        "de": "Schlag + Ruf",
    },
    "b.quit": {"en": "Quit", "de": "Beenden"},
    "b.rules": {"en": "Rules", "de": "Regeln"},
    "b.save": {"en": "Save", "de": "Speichern"},
    "b.flip": {"en": "Flip", "de": "Aufdecken"},
    "b.back": {"en": "Back", "de": "Zurück"},
    "b.play_again": {"en": "Play again", "de": "Nochmal"},
    "b.new_setup": {"en": "New setup", "de": "Neu einstellen"},
    # ----------------------------------------------------------------- events
    "ev.flipped": {"en": "{name} flips {card}", "de": "{name} deckt {card} auf"},
    "ev.flipped_call": {
        "en": "{name} calls {call} and flips {card}",
        "de": "{name} sagt {call} an und deckt {card} auf",
    },
    "ev.flipped_match": {
        "en": "{name} calls {call} and flips {card}: a match!",
        "de": "{name} sagt {call} an und deckt {card} auf: Treffer!",
    },
    "ev.slapped": {"en": "{name} slaps in {ms}", "de": "{name} schlägt nach {ms}"},
    "ev.slapped_guess": {
        "en": "{name} slaps after only {ms}: too soon, a guess",
        "de": "{name} schlägt schon nach {ms}: zu früh, geraten",
    },
    "ev.slapped_call": {
        "en": "{name} slaps and calls in {ms}",
        "de": "{name} schlägt und ruft nach {ms}",
    },
    "ev.slapped_call_guess": {
        "en": "{name} slaps and calls after only {ms}: too soon, a guess",
        "de": "{name} schlägt und ruft schon nach {ms}: zu früh, geraten",
    },
    "ev.wrong.pay_player": {
        "en": "{name} slapped wrongly and pays a card to {to}",
        "de": "{name} hat falsch geschlagen und gibt {to} eine Karte",
    },
    "ev.wrong.pay_player_self": {
        "en": "{name} slapped their own card: top card to the bottom",
        "de": "{name} hat auf die eigene Karte geschlagen: oberste Karte nach unten",
    },
    "ev.wrong.pay_pile": {
        "en": "{name} slapped wrongly and pays a card under the pile",
        "de": "{name} hat falsch geschlagen und legt eine Karte unter den Stapel",
    },
    "ev.wrong.pickup": {
        "en": "{name} slapped wrongly",
        "de": "{name} hat falsch geschlagen",
    },
    "ev.wrong.none": {
        "en": "{name} slapped wrongly with no card to pay",
        "de": "{name} hat falsch geschlagen und keine Karte zum Bezahlen",
    },
    "ev.wrong.forfeit": {"en": "{name} slapped wrongly", "de": "{name} hat falsch geschlagen"},
    "ev.race_won": {
        "en": "{name} wins the Jack and takes {cards}",
        "de": "{name} gewinnt den Buben und nimmt {cards}",
    },
    "ev.race_tied": {
        "en": "Tie at {ms}: {names} slap again",
        "de": "Gleichstand bei {ms}: {names} schlagen nochmal",
    },
    "ev.pile_split": {
        "en": "Tie: the pile is split ({shares})",
        "de": "Gleichstand: der Stapel wird geteilt ({shares})",
    },
    "ev.forfeit": {
        "en": "{name} forfeits the pile: shared out ({shares})",
        "de": "{name} verliert den Stapel: verteilt ({shares})",
    },
    "ev.no_slap": {
        "en": "Nobody slapped the {card}: it stays in the pile",
        "de": "Niemand hat auf {card} geschlagen: sie bleibt im Stapel",
    },
    "ev.picked_up.last": {
        "en": "{name} was last and picks up {cards}",
        "de": "{name} war zuletzt und nimmt {cards} auf",
    },
    "ev.picked_up.wrong": {
        "en": "{name} picks up {cards}",
        "de": "{name} nimmt {cards} auf",
    },
    "ev.pile_returned": {
        "en": "Nobody can flip: the pile of {cards} goes to {name}",
        "de": "Niemand kann aufdecken: der Stapel mit {cards} geht an {name}",
    },
    "ev.out.no_cards": {"en": "{name} is out: no cards", "de": "{name} ist raus: keine Karten"},
    "ev.out.lost_jack": {
        "en": "{name} is out: no cards and the Jack went to another",
        "de": "{name} ist raus: keine Karten und der Bube ging an jemand anderen",
    },
    "ev.out.turn": {
        "en": "{name} is out: no cards on their turn",
        "de": "{name} ist raus: keine Karten beim eigenen Zug",
    },
    "ev.out.wrong_slap": {
        "en": "{name} is out: wrong slap without cards",
        "de": "{name} ist raus: Fehlschlag ohne Karten",
    },
    "ev.finished": {
        "en": "{name} has no cards left: safe!",
        "de": "{name} hat keine Karten mehr: sicher!",
    },
    "ev.finished_win": {
        "en": "{name} is out first and wins!",
        "de": "{name} ist zuerst fertig und gewinnt!",
    },
    "ev.time_up": {"en": "Time is up!", "de": "Die Zeit ist um!"},
    "ev.game_over": {"en": "Game over: {names} won", "de": "Spielende: {names} gewinnt"},
    "ev.game_over_loser": {
        "en": "Game over: {name} is left holding cards",
        "de": "Spielende: {name} bleibt auf den Karten sitzen",
    },
    # ------------------------------------------------------------- end screen
    "end.title": {"en": "Game over", "de": "Spielende"},
    "end.winner": {"en": "{names} won!", "de": "{names} gewinnt!"},
    "end.winners": {"en": "{names} share the win!", "de": "{names} teilen sich den Sieg!"},
    "end.loser": {"en": "{name} lost.", "de": "{name} hat verloren."},
    "end.place": {"en": "Place", "de": "Platz"},
    "end.cards": {"en": "Cards", "de": "Karten"},
    "end.jacks": {"en": "Jacks won", "de": "Buben"},
    "end.pickups": {"en": "Pick-ups", "de": "Aufgenommen"},
    "end.fastest": {"en": "Fastest", "de": "Schnellste"},
    "end.wrong": {"en": "Wrong slaps", "de": "Fehlschläge"},
    "end.hint": {
        "en": "Enter: play again · N: new setup · S: save · Esc: quit",
        "de": "Enter: nochmal · N: neu einstellen · S: speichern · Esc: beenden",
    },
    # ---------------------------------------------------------------- dialogs
    "quit.question": {"en": "Quit this game?", "de": "Dieses Spiel beenden?"},
    "quit.detail": {
        "en": "The game is not over. Save it first with S if you want to replay it.",
        "de": "Das Spiel ist nicht vorbei. Mit S vorher speichern, um es nachzuspielen.",
    },
    "quit.yes": {"en": "Quit (Y)", "de": "Beenden (J)"},
    "quit.no": {"en": "Keep playing (N)", "de": "Weiterspielen (N)"},
    "rules.title": {"en": "Rules: {preset}", "de": "Regeln: {preset}"},
    "rules.close": {"en": "Esc or ? closes", "de": "Esc oder ? schließt"},
    "yes": {"en": "yes", "de": "ja"},
    "no": {"en": "no", "de": "nein"},
    "seconds": {"en": "{n} s", "de": "{n} s"},
    "off": {"en": "off", "de": "aus"},
    # ----------------------------------------------------------------- online
    "online.title": {"en": "room {code}", "de": "Raum {code}"},
    "online.joining": {
        "en": "Joining room {code} on {server} …",
        "de": "Trete Raum {code} auf {server} bei …",
    },
    "online.connecting": {"en": "Connecting to room {code} …", "de": "Verbinde mit Raum {code} …"},
    "online.joined": {
        "en": "You play seat {number} as {who} in room {code}",
        "de": "Du spielst auf Platz {number} als {who} in Raum {code}",
    },
    "online.token_hint": {
        "en": "Back into this seat later: --join {code} --token {token}",
        "de": "Später zurück auf diesen Platz: --join {code} --token {token}",
    },
    "online.seat_saved": {
        "en": "Saved: --join {code} with the same name takes this seat back",
        "de": "Gespeichert: --join {code} mit demselben Namen holt diesen Platz zurück",
    },
    "online.rejoining": {
        "en": "Back into your seat {number} as {who}",
        "de": "Zurück auf deinen Platz {number} als {who}",
    },
    "online.saved_gone": {
        "en": "Your saved seat is no longer in the room: joining anew",
        "de": "Dein gespeicherter Platz ist nicht mehr im Raum: trete neu bei",
    },
    "online.watching": {
        "en": "You are watching room {code}",
        "de": "Du schaust in Raum {code} zu",
    },
    "online.join_failed": {
        "en": "Could not join: {message} · Esc quits",
        "de": "Beitritt fehlgeschlagen: {message} · Esc beendet",
    },
    "online.unreachable": {
        "en": "The server cannot be reached: {error}",
        "de": "Der Server ist nicht erreichbar: {error}",
    },
    "online.unreachable_retry": {
        "en": "The server cannot be reached ({error}): trying again in {s:.1f} s",
        "de": "Der Server ist nicht erreichbar ({error}): neuer Versuch in {s:.1f} s",
    },
    "online.reconnecting": {
        "en": "Connection lost: reconnecting in {s:.1f} s (try {n})",
        "de": "Verbindung verloren: neuer Versuch in {s:.1f} s (Versuch {n})",
    },
    "online.lost": {
        "en": "Connection lost: the seat stays yours, reconnecting",
        "de": "Verbindung verloren: der Platz bleibt deiner, verbinde neu",
    },
    "online.back": {
        "en": "Connected again: same seat, same game",
        "de": "Wieder verbunden: gleicher Platz, gleiches Spiel",
    },
    "online.gone": {
        "en": "The server ended the connection ({reason}) · Esc quits",
        "de": "Der Server hat die Verbindung beendet ({reason}) · Esc beendet",
    },
    "online.gone_token": {
        "en": "This seat token belongs to no seat of the room · Esc quits",
        "de": "Dieser Platz-Schlüssel gehört zu keinem Platz im Raum · Esc beendet",
    },
    "online.gone_room": {
        "en": "The room is closed or does not exist · Esc quits",
        "de": "Der Raum ist geschlossen oder existiert nicht · Esc beendet",
    },
    "online.gone_flood": {
        "en": "Too many inputs: the server closed the connection · Esc quits",
        "de": "Zu viele Eingaben: der Server hat die Verbindung getrennt · Esc beendet",
    },
    "online.bad_frame": {
        "en": "The server sent something this client cannot read ({what})",
        "de": "Der Server hat etwas geschickt, das dieses Programm nicht lesen kann ({what})",
    },
    "online.unknown_events": {
        "en": "{count} event(s) of a newer server not shown",
        "de": "{count} Ereignis(se) eines neueren Servers nicht angezeigt",
    },
    "online.waiting": {
        "en": "Waiting for players: {taken} of {seats} seats taken · Enter starts now with bots",
        "de": "Warte auf Mitspieler: {taken} von {seats} Plätzen besetzt · Enter startet jetzt mit Bots",
    },
    "online.waiting_watch": {
        "en": "Waiting for players: {taken} of {seats} seats taken",
        "de": "Warte auf Mitspieler: {taken} von {seats} Plätzen besetzt",
    },
    "online.starting": {
        "en": "Everyone is here: the game starts in a moment",
        "de": "Alle sind da: das Spiel beginnt gleich",
    },
    "online.seat_free": {"en": "free", "de": "frei"},
    "online.seat_you": {"en": "you", "de": "du"},
    "online.seat_away": {"en": "not connected", "de": "nicht verbunden"},
    "online.remote": {"en": "online", "de": "online"},
    "online.turn_you": {
        "en": "{name}: your turn · {key} or Space flips",
        "de": "{name}: du bist dran · {key} oder Leertaste deckt auf",
    },
    "online.fixed": {
        "en": "The table flips by itself every few seconds",
        "de": "Der Tisch deckt alle paar Sekunden selbst auf",
    },
    "online.over": {
        "en": "Game over · R asks for a rematch · Esc quits",
        "de": "Spielende · R fragt nach einer Revanche · Esc beendet",
    },
    "online.over_watch": {"en": "Game over · Esc quits", "de": "Spielende · Esc beendet"},
    "online.rematch_asked": {
        "en": "You asked for a rematch: it starts when everyone has",
        "de": "Revanche gewünscht: sie beginnt, wenn alle zugestimmt haben",
    },
    "online.new_game": {"en": "A new game begins", "de": "Ein neues Spiel beginnt"},
    "online.you_slapped": {"en": "You slapped: {ms}", "de": "Du hast geschlagen: {ms}"},
    "online.quit_detail": {
        "en": "The game goes on without you: a bot covers your seat after a short grace.",
        "de": "Das Spiel geht ohne dich weiter: nach kurzer Zeit spielt ein Bot für dich.",
    },
    "b.slap": {"en": "Slap", "de": "Schlagen"},
    "b.call": {"en": "Call", "de": "Rufen"},
    "b.start_now": {"en": "Start now", "de": "Jetzt starten"},
    "b.rematch": {"en": "Rematch", "de": "Revanche"},
    "b.copy_token": {"en": "Copy token", "de": "Schlüssel kopieren"},
    "online.copied": {
        "en": "Seat token copied to the clipboard",
        "de": "Platz-Schlüssel in die Zwischenablage kopiert",
    },
    "online.your_token": {
        "en": "Your seat {number}, token:",
        "de": "Dein Platz {number}, Schlüssel:",
    },
    "online.copy_hint": {"en": "(T copies it)", "de": "(T kopiert ihn)"},
    "online.back_later": {"en": "Back into the seat later:", "de": "Später zurück auf den Platz:"},
    "online.rematch_none": {
        "en": "R asks the others for a rematch with the same seats",
        "de": "R fragt die anderen nach einer Revanche mit denselben Plätzen",
    },
    "online.rematch_none_watch": {
        "en": "Nobody has asked for a rematch yet",
        "de": "Noch hat niemand nach einer Revanche gefragt",
    },
    "online.rematch_by": {
        "en": "Rematch asked for by {names}.",
        "de": "Revanche gewünscht von {names}.",
    },
    "online.rematch_wait": {
        "en": "Waiting for {names}.",
        "de": "Es fehlt noch: {names}.",
    },
    "online.over_asked": {
        "en": "Game over · {names} asks for a rematch: R to play again · Esc quits",
        "de": "Spielende · {names} möchte eine Revanche: R spielt nochmal · Esc beendet",
    },
    # ---------------------------------------------------------- server errors
    "srv.bad_json": {
        "en": "The server could not read a message of ours",
        "de": "Der Server konnte eine Nachricht von uns nicht lesen",
    },
    "srv.bad_message": {
        "en": "The server refused a message: {message}",
        "de": "Der Server hat eine Nachricht abgelehnt: {message}",
    },
    "srv.too_large": {"en": "A message was too large", "de": "Eine Nachricht war zu groß"},
    "srv.bad_token": {
        "en": "The server does not know this seat token",
        "de": "Der Server kennt diesen Platz-Schlüssel nicht",
    },
    "srv.not_your_turn": {"en": "It is not your turn", "de": "Du bist nicht dran"},
    "srv.stale_flip": {
        "en": "Too late: the table moved on",
        "de": "Zu spät: am Tisch ging es schon weiter",
    },
    "srv.game_over": {"en": "The game is over", "de": "Das Spiel ist vorbei"},
    "srv.not_settled": {
        "en": "Wait: the race is not decided yet",
        "de": "Warten: das Rennen ist noch nicht entschieden",
    },
    "srv.not_started": {
        "en": "The game has not started yet",
        "de": "Das Spiel hat noch nicht begonnen",
    },
    "srv.player_out": {"en": "You are out of this game", "de": "Du bist aus diesem Spiel raus"},
    "srv.spectator": {
        "en": "Spectators cannot play",
        "de": "Zuschauer können nicht mitspielen",
    },
    "srv.rate_limited": {
        "en": "Too many inputs: slow down",
        "de": "Zu viele Eingaben: langsamer",
    },
    "srv.room_closed": {"en": "The room is closed", "de": "Der Raum ist geschlossen"},
    "srv.room_full": {
        "en": "The room is full or its game has started",
        "de": "Der Raum ist voll oder das Spiel läuft schon",
    },
    "srv.unknown_room": {
        "en": "There is no such room on this server",
        "de": "Diesen Raum gibt es auf dem Server nicht",
    },
    "srv.server_full": {"en": "The server is full", "de": "Der Server ist voll"},
    "srv.other": {"en": "Server: {message} ({code})", "de": "Server: {message} ({code})"},
}


def tr(lang: str, key: str, /, **values: object) -> str:
    """The text ``key`` in ``lang`` (English if missing), formatted with ``values``."""
    entry = TEXTS[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**values) if values else text


def detect_lang(explicit: str | None = None) -> str:
    """``explicit`` if given (``en``/``de``; anything else raises
    :class:`~slapjack.texts.LanguageError`), else the locale's language."""
    if explicit is not None:
        return check_lang(explicit)
    return locale_language()


def rank_label(rank: int, lang: str) -> str:
    """``"J"`` in English, ``"B"`` (Bube) in German."""
    return (_RANKS_DE if lang == "de" else RANKS)[rank]


def card_label(card: int, lang: str) -> str:
    """A short face: ``"J♠"`` / ``"B♠"``."""
    if lang == "en":
        return card_symbol(card)
    return rank_label(rank_of(card), lang) + _SUIT_SYMBOLS[suit_of(card)]


def card_long_name(card: int, lang: str) -> str:
    """``"Jack of spades"`` / ``"Pik Bube"``: the card in words (no colour needed)."""
    rank = _RANK_NAMES.get(lang, _RANK_NAMES["en"])[rank_of(card)]
    suit = _SUIT_NAMES.get(lang, _SUIT_NAMES["en"])[suit_of(card)]
    return f"{suit} {rank}" if lang == "de" else f"{rank} of {suit}"


def suit_symbol(card: int) -> str:
    return _SUIT_SYMBOLS[suit_of(card)]


def join_names(names: list[str], lang: str) -> str:
    """``"Anna"``, ``"Anna and Ben"``, ``"Anna, Ben and Carla"``."""
    if len(names) <= 1:
        return "".join(names)
    word = " und " if lang == "de" else " and "
    return ", ".join(names[:-1]) + word + names[-1]


def cards_text(n: int, lang: str) -> str:
    """``1 card`` / ``3 cards`` (``1 Karte`` / ``3 Karten``)."""
    if lang == "de":
        return f"{n} Karte" if n == 1 else f"{n} Karten"
    return f"{n} card" if n == 1 else f"{n} cards"


def format_ms(ms: float | None, lang: str) -> str:
    """``212 ms``; ``—`` for no slap."""
    if ms is None:
        return tr(lang, "no_reaction")
    return f"{ms:.0f} ms"
