"""Deutsche Regeltexte, in den eigenen Worten des Projekts."""

from __future__ import annotations

from ._catalog import TIME_LIMIT_OFF, TIME_LIMIT_ON, Catalog, Decision

CATALOG = Catalog(
    lang="de",
    headings={
        "how_to_play": "So wird gespielt",
        "options": "Die Regeln an diesem Tisch",
        "silent": "Wo die Regelhefte schweigen",
        "changed": "Abweichend von der Vorgabe",
    },
    game_names={"slapjack": "Slapjack", "irish-snap": "Irish Snap"},
    intros={
        "slapjack": (
            "Slapjack ist ein Wettrennen der Hände. Alle legen reihum Karten offen auf "
            "einen gemeinsamen Stapel in der Mitte und halten Ausschau nach einem Buben. "
            "Kaum liegt ein Bube oben, heißt es zuschlagen: Die schnellste Hand holt sich "
            "den ganzen Stapel. Wer am Ende alle Karten hat, gewinnt."
        ),
        "irish-snap": (
            "Irish Snap dreht das Rennen um. Zu jeder aufgedeckten Karte gehört ein "
            "angesagter Rang, der vom Ass bis zum König hochzählt und dann von vorn "
            "beginnt. Zeigt die Karte genau den angesagten Rang, schlagen alle zu, und die "
            "langsamste Hand muss den Stapel nehmen. Ziel ist, die eigenen Karten "
            "loszuwerden."
        ),
    },
    basics={
        "slapjack": (
            "**Karten und Plätze.** Gespielt wird mit einem gewöhnlichen Blatt aus 52 "
            "Karten ohne Joker. Alle Karten werden einzeln im Uhrzeigersinn verdeckt "
            "verteilt; dabei kann es sein, dass manche eine Karte mehr bekommen. Niemand "
            "schaut in den eigenen Stapel.",
            "**Dein Zug.** Gespielt wird im Uhrzeigersinn. Bist du dran, deckst du die "
            "oberste Karte deines Stapels auf und legst sie auf den Mittelstapel. Der Tisch "
            "zeigt die neue Karte allen im selben Augenblick, also sieht sie niemand früher, "
            "auch du nicht.",
            "**Ein Bube!** Schlag so schnell du kannst auf den Stapel. Der schnellste Schlag "
            "gewinnt den ganzen Mittelstapel. Er wandert ungemischt und verdeckt unter den "
            "Stapel des Gewinners; die älteste Karte daraus kommt also als erste wieder "
            "zum Vorschein.",
            "**Jede andere Karte.** Hände weg: Wer auf etwas anderes als einen Buben schlägt, "
            "macht einen Fehlschlag, und der kostet (siehe die Regeln unten). Nur dein "
            "erster Schlag auf eine Karte zählt, und ein Schlag auf den leeren Tisch bewirkt "
            "nichts.",
            "**Keine Karten mehr.** Mit leerem Stapel deckst du nichts mehr auf; ob du damit "
            "ausscheidest, regeln die Optionen unten.",
            "**Das Ende.** Ist nur noch eine Person im Spiel, hat sie gewonnen.",
        ),
        "irish-snap": (
            "**Karten und Plätze.** Gespielt wird mit einem gewöhnlichen Blatt aus 52 "
            "Karten ohne Joker. Alle Karten werden einzeln im Uhrzeigersinn verdeckt "
            "verteilt; dabei kann es sein, dass manche eine Karte mehr bekommen. Niemand "
            "schaut in den eigenen Stapel.",
            "**Die Ansage.** Gespielt wird im Uhrzeigersinn. Zur ersten aufgedeckten Karte "
            "gehört die Ansage „Ass“, zur nächsten „2“, dann 3 und so weiter über 10, Bube, "
            "Dame und König und danach wieder Ass. Der Tisch zeigt die Ansage neben jeder "
            "Karte an; du musst sie nicht eintippen.",
            "**Ein Treffer.** Hat die aufgedeckte Karte genau den angesagten Rang, schlagen "
            "alle zu, die noch mitspielen, auch wer sie aufgedeckt hat. Die Hand, die als "
            "letzte landet, nimmt den ganzen Mittelstapel und legt ihn verdeckt unter den "
            "eigenen Stapel. Dann beginnt die Ansage wieder mit Ass, und zwar bei der Person "
            "links davon.",
            "**Kein Treffer.** Hände weg. Wer auf eine Karte schlägt, die nicht passt, nimmt "
            "den Stapel selbst, und die Ansage beginnt wieder mit Ass bei der Person links "
            "davon.",
            "**Keine Karten mehr.** Was ein leerer Stapel bedeutet, legt das Spielziel unten fest.",
        ),
    },
    option_labels={
        "after_jack": "Nach einem gewonnenen Buben",
        "wrong_slap": "Fehlschlag",
        "empty_stack": "Keine Karten mehr",
        "tie": "Genauer Gleichstand",
        "time_limit": "Zeitlimit",
        "say_it": "Ansagen",
        "irish_goal": "Spielziel",
    },
    option_help={
        "after_jack": "Wer die nächste Karte aufdeckt, nachdem jemand einen Buben gewonnen hat.",
        "wrong_slap": "Was ein Schlag auf irgendeine andere Karte als einen Buben kostet.",
        "empty_stack": "Was mit jemandem geschieht, dessen Stapel aufgebraucht ist.",
        "tie": "Was gilt, wenn die schnellsten Schläge auf einen Buben genau gleich schnell sind.",
        "time_limit": "Auf Zeit spielen, statt bis zur letzten verbliebenen Person.",
        "say_it": "Jeder Schlag auf einen Buben braucht den Ruf „Slapjack!“.",
        "irish_goal": "Wie eine Partie Irish Snap entschieden wird.",
    },
    value_labels={
        "after_jack": {"left_of_winner": "Links vom Gewinner", "continue": "Einfach weiter"},
        "wrong_slap": {"pay_player": "Karte an den Leger", "pay_pile": "Karte unter den Stapel"},
        "empty_stack": {
            "next_jack": "Auf den nächsten Buben warten",
            "until_turn": "Raus beim nächsten Zug",
        },
        "tie": {"reslap": "Noch einmal schlagen", "split": "Stapel teilen"},
        "time_limit": {TIME_LIMIT_OFF: "Kein Limit", TIME_LIMIT_ON: "{duration}"},
        "say_it": {"false": "Aus", "true": "An"},
        "irish_goal": {
            "avoid_last": "Nicht als Letzter",
            "first_out": "Wer zuerst fertig ist, gewinnt",
        },
    },
    value_lines={
        "after_jack": {
            "left_of_winner": "Die Person links vom Gewinner ist als Nächste dran.",
            "continue": "Es geht nach der Person weiter, die den Buben aufgedeckt hat.",
        },
        "wrong_slap": {
            "pay_player": "Deine oberste Karte geht unter den Stapel dessen, der die Karte gelegt hat.",
            "pay_pile": "Deine oberste Karte kommt verdeckt unter den Mittelstapel.",
        },
        "empty_stack": {
            "next_jack": "Du bleibst im Spiel und kannst dich mit dem nächsten Buben zurückholen.",
            "until_turn": "Du scheidest bei deinem nächsten Zug aus, außer du gewinnst vorher einen Buben.",
        },
        "tie": {
            "reslap": "Die Gleichschnellen schlagen noch einmal; der Schnellste von ihnen gewinnt.",
            "split": "Der Stapel wird unter den Gleichschnellen aufgeteilt.",
        },
        "time_limit": {
            TIME_LIMIT_OFF: "Kein Zeitlimit: Das Spiel läuft, bis eine einzige Person übrig bleibt.",
            TIME_LIMIT_ON: "Nach {duration} gewinnt, wer die meisten Karten hat.",
        },
        "say_it": {
            "false": "Kein Ruf nötig: ein Schlag ist einfach ein Schlag.",
            "true": "Ruf „Slapjack!“ zu deinem Schlag, sonst teilen die anderen den Stapel.",
        },
        "irish_goal": {
            "avoid_last": "Werde deine Karten los; wer als Letzter noch Karten hat, verliert.",
            "first_out": "Leere deinen Stapel und triff dann noch einmal richtig: wer das zuerst schafft, gewinnt.",
        },
    },
    value_texts={
        "after_jack": {
            "left_of_winner": (
                "Wer links neben der Person sitzt, die den Buben gewonnen hat, deckt die "
                "nächste Karte auf. Wer keine Karte zum Aufdecken hat, wird übersprungen."
            ),
            "continue": (
                "Es geht einfach weiter: Dran ist, wer nach der Person gekommen wäre, die den "
                "Buben aufgedeckt hat, ganz gleich, wer ihn gewonnen hat."
            ),
        },
        "wrong_slap": {
            "pay_player": (
                "Schlägst du auf irgendeine Karte außer einem Buben, bezahlst du mit deiner "
                "obersten Karte: Sie kommt verdeckt unter den Stapel der Person, die die "
                "geschlagene Karte aufgedeckt hat. Der Mittelstapel bleibt liegen. Schlägst "
                "du auf deine eigene Karte, wandert deine oberste Karte nur nach unten in "
                "deinen Stapel. Hast du keine Karte mehr zum Bezahlen, scheidest du aus."
            ),
            "pay_pile": (
                "Schlägst du auf irgendeine Karte außer einem Buben, bezahlst du mit deiner "
                "obersten Karte: Sie kommt verdeckt unter den Mittelstapel, und wer den "
                "nächsten Buben gewinnt, bekommt sie mit. Hast du keine Karte mehr zum "
                "Bezahlen, scheidest du aus."
            ),
        },
        "empty_stack": {
            "next_jack": (
                "Ist dein Stapel leer, deckst du keine Karten mehr auf (deine Züge werden "
                "übersprungen), bist aber noch im Spiel. Pass gut auf: Gewinnst du den "
                "nächsten Buben, bist du mit dem ganzen Stapel zurück. Gewinnt ihn jemand "
                "anderes, oder machst du vorher einen Fehlschlag, scheidest du aus."
            ),
            "until_turn": (
                "Ist dein Stapel leer, darfst du weiter mitschlagen, scheidest aber aus, "
                "sobald du wieder an der Reihe wärst, es sei denn, du schlägst vorher als "
                "Erste oder Erster auf einen Buben: Dann gehört der Stapel dir und du "
                "spielst weiter."
            ),
        },
        "tie": {
            "reslap": (
                "Sind die schnellsten Schläge auf einen Buben genau gleich schnell, bekommen "
                "nur die Gleichschnellen ein neues Signal und schlagen noch einmal; der "
                "Schnellste von ihnen gewinnt. Nach einem zweiten Gleichstand gibt es noch ein "
                "neues Signal; sind sie auch beim dritten Mal gleich schnell, entscheidet die "
                "Sitzreihenfolge."
            ),
            "split": (
                "Sind die schnellsten Schläge auf einen Buben genau gleich schnell, teilen sich "
                "die Gleichschnellen den Stapel: Er wird Karte für Karte unter ihnen verteilt, "
                "die älteste zuerst, in Sitzreihenfolge ab der Person, die den Buben "
                "aufgedeckt hat."
            ),
        },
        "time_limit": {
            TIME_LIMIT_OFF: (
                "Es gibt kein Zeitlimit; das Spiel läuft, bis eine einzige Person übrig bleibt."
            ),
            TIME_LIMIT_ON: (
                "Eine Partie dauert {duration}. Ist die Zeit um, wird ein noch offenes "
                "Schlagrennen zuerst entschieden; dann gewinnt, wer noch im Spiel ist und "
                "die meisten Karten im eigenen Stapel hat. Bei gleich vielen teilen sich "
                "mehrere den Sieg. Die Karten in der Mitte zählen für niemanden."
            ),
        },
        "say_it": {
            "false": "Niemand muss etwas rufen; ein Schlag ist einfach ein Schlag.",
            "true": (
                "Jeder Schlag auf einen Buben braucht den Ruf „Slapjack!“ (eine eigene Taste "
                "oder Schaltfläche, vor dem Schlag auf dieselbe Karte oder höchstens eine "
                "Drittelsekunde danach). Es zählt nur der "
                "schnellste Schlag: Kam er ohne Ruf, hat diese Person verspielt. Ebenso "
                "verspielt, wer auf irgendeine Karte außer einem Buben schlägt, ob mit Ruf oder "
                "ohne. Dann wird der Mittelstapel unter allen anderen, die noch im Spiel "
                "sind, Karte für Karte verteilt, beginnend links von der Person, die "
                "verspielt hat. Diese Regel ersetzt die Regel zum Fehlschlag."
            ),
        },
        "irish_goal": {
            "avoid_last": (
                "Sobald deine letzte Karte offen liegt, bist du in Sicherheit und scheidest "
                "aus dem Spiel aus. Die Reihenfolge, in der alle ihre Karten loswerden, ist "
                "die Rangfolge. Das Spiel geht weiter, bis nur eine einzige Person noch "
                "Karten hält: Sie verliert."
            ),
            "first_out": (
                "Die letzte Karte aufzudecken reicht nicht. Du bleibst mit leerem Stapel am "
                "Tisch (deine Züge werden übersprungen) und musst bei Treffern weiter "
                "mitschlagen. Wer als Erste oder Erster ohne Karten bei einem Treffer richtig "
                "schlägt und dabei nicht die letzte Hand ist, gewinnt die Partie. Wer ohne "
                "Karten als Letzter schlägt oder auf eine Karte schlägt, die nicht passt, "
                "nimmt wie gewohnt den Stapel und spielt weiter."
            ),
        },
    },
    say_it_replaces_wrong_slap=(
        "Gilt an diesem Tisch nicht: Mit „Ansagen“ ist ein Fehlschlag verspielt (siehe unten)."
    ),
    irish_ignores="Die Slapjack-Optionen ({names}) haben bei Irish Snap keine Bedeutung.",
    decisions={
        "who_starts": Decision(
            "Wer anfängt",
            "Wer die erste Karte bekommt, deckt auch die erste Karte auf. Wer als Geber "
            "gilt, ist nur eine Bezeichnung.",
        ),
        "no_slap": Decision(
            "Niemand schlägt auf einen Buben",
            "Schließt sich das Schlagfenster eines Buben, ohne dass irgendwer geschlagen hat "
            "(etwa weil gerade alle abwesend sind), bleibt der Bube im Stapel und wird bald "
            "von den nächsten Karten zugedeckt. Weiter geht es mit der Person nach der, die "
            "ihn aufgedeckt hat. Da ihn niemand gewonnen hat, scheidet deswegen auch niemand "
            "mit leerem Stapel aus. Ein Schlag auf diesen Buben nach Ende seines "
            "Schlagfensters zählt nicht.",
        ),
        "pile_returned": Decision(
            "Niemand kann aufdecken",
            "Es kann vorkommen, dass alle Karten, die noch im Spiel sind, in der Mitte "
            "liegen und niemand mehr eine Karte hat. Damit das Spiel nie hängen bleibt, "
            "geht der ganze Mittelstapel verdeckt, die älteste Karte zuoberst, an die "
            "Person, die zuletzt aufgedeckt hat, oder, falls sie ausgeschieden ist, an die "
            "nächste Person im Uhrzeigersinn, die noch mitspielt. Sie ist dann an der Reihe.",
        ),
        "pile_returned_irish": Decision(
            "Niemand kann aufdecken",
            "Es kann vorkommen, dass alle Karten, die noch im Spiel sind, in der Mitte "
            "liegen und niemand mehr eine Karte hat. Damit das Spiel nie hängen bleibt, "
            "geht der ganze Mittelstapel verdeckt, die älteste Karte zuoberst, an die "
            "Person, die zuletzt aufgedeckt hat, oder, falls sie ausgeschieden ist, an die "
            "nächste Person im Uhrzeigersinn, die noch mitspielt. Sie ist dann an der Reihe, "
            "und die Ansage beginnt wieder mit Ass.",
        ),
        "owed_to_out": Decision(
            "Bezahlen an jemanden, der ausgeschieden ist",
            "Ein Fehlschlag kostet deine oberste Karte, die an die Person geht, deren Karte "
            "du geschlagen hast. Ist diese Person schon ausgeschieden, kommt deine Karte "
            "stattdessen verdeckt unter den Mittelstapel.",
        ),
        "say_it_forfeit": Decision(
            "Nach einem verspielten Schlag",
            "Es geht weiter wie nach einem gewonnenen Buben, nur steht die Person, die "
            "verspielt hat, an der Stelle des Gewinners: Mit `after_jack = left_of_winner` "
            "ist die Person links von ihr dran, mit `after_jack = continue` die Person nach "
            "der, die die geschlagene Karte aufgedeckt hat. Hat die Person danach gar keine "
            "Karten mehr, scheidet sie sofort aus.",
        ),
        "reslap_silence": Decision(
            "Nach einem Gleichstand schlägt niemand mehr",
            "Bekommen die Gleichschnellen ihr neues Signal, aber keiner von ihnen schlägt "
            "noch einmal, oder sind sie auch beim dritten Signal gleich schnell, entscheidet "
            "die Sitzreihenfolge: Es gewinnt, wer von ihnen im "
            "Uhrzeigersinn als Erster kommt, gezählt ab der Person, die den Buben "
            "aufgedeckt hat (sie selbst eingeschlossen).",
        ),
        "split_turn": Decision(
            "Wer nach einem geteilten Stapel dran ist",
            "Nach dem Teilen geht es nach der Regel `after_jack` weiter, als hätte die erste "
            "der gleichschnellen Personen den Buben gewonnen, gezählt im Uhrzeigersinn ab "
            "der Person, die ihn aufgedeckt hat. Geht der Stapel nicht glatt auf, bekommen "
            "die Ersten in dieser Reihenfolge je eine Karte mehr.",
        ),
        "irish_last": Decision(
            "Wer der Letzte ist",
            "Das Schlagfenster eines Treffers schließt sich, sobald alle geschlagen haben, "
            "die schlagen müssen, oder wenn seine Zeit abläuft. Wer bis dahin nicht "
            "geschlagen hat, gilt als später als alle, die geschlagen haben. Sind mehrere "
            "gleich spät (etwa mehrere, die gar nicht geschlagen haben), nimmt den Stapel, "
            "wer von ihnen im Uhrzeigersinn als Erster kommt, gezählt ab der Person, die die "
            "Karte aufgedeckt hat, und mit ihr beginnend.",
        ),
        "last_card_safe": Decision(
            "Deine letzte Karte ist ein Treffer",
            "Du bist in Sicherheit, sobald deine letzte Karte offen liegt, auch wenn sie ein "
            "Treffer ist: Du musst nicht mehr schlagen, die anderen schlagen ohne dich.",
        ),
        "first_out_tie": Decision(
            "Zwei Sieger auf einmal",
            "Schlagen beim selben Treffer mehrere ohne Karten richtig und nicht als Letzte, "
            "gewinnt die schnellste Hand unter ihnen; bei gleicher Zeit, wer im "
            "Uhrzeigersinn ab der Person, die die Karte aufgedeckt hat, zuerst kommt.",
        ),
        "referee": Decision(
            "Die schnellste Hand, nicht die schnellste Leitung",
            "Über ein Netzwerk kommt nicht immer der Schlag zuerst beim Server an, der "
            "zuerst ausgeführt wurde. Darum misst dein eigenes Gerät deine Reaktionszeit: "
            "die Zeit vom Erscheinen der Karte auf deinem Bildschirm bis zu deinem "
            "Tastendruck oder Tippen. Der Tisch vergleicht diese Reaktionszeiten, nachdem "
            "er jede Angabe an dem geprüft hat, was er von deiner Verbindung sieht. Eine "
            "langsame Leitung kostet dich also nichts, und ein manipuliertes Gerät gewinnt "
            "so gut wie nichts. Die kleinste Reaktionszeit gewinnt.",
        ),
        "referee_irish": Decision(
            "Die langsamste Hand, nicht die langsamste Leitung",
            "Über ein Netzwerk kommt nicht immer der Schlag zuletzt beim Server an, der "
            "zuletzt ausgeführt wurde. Darum misst dein eigenes Gerät deine Reaktionszeit: "
            "die Zeit vom Erscheinen der Karte auf deinem Bildschirm bis zu deinem "
            "Tastendruck oder Tippen. Der Tisch vergleicht diese Reaktionszeiten, nachdem "
            "er jede Angabe an dem geprüft hat, was er von deiner Verbindung sieht. Eine "
            "langsame Leitung macht dich also nicht zum Letzten, und ein manipuliertes "
            "Gerät gewinnt so gut wie nichts. Die größte Reaktionszeit ist die letzte.",
        ),
        "anticipation": Decision(
            "Raten lohnt sich nicht",
            "Niemand reagiert wirklich schneller als in etwa einer Zehntelsekunde auf eine "
            "Karte. Ein Schlag, der weniger als 100 ms nach dem Erscheinen der Karte kommt, "
            "gilt als geraten, wie ein Fehlstart beim Sprint: Er zählt hinter jeder echten "
            "Reaktion und kann also keinen Buben gewinnen. (100 ms ist die Voreinstellung; "
            "ein Tisch kann eine andere Grenze festlegen.)",
        ),
        "anticipation_irish": Decision(
            "Raten lohnt sich nicht",
            "Niemand reagiert wirklich schneller als in etwa einer Zehntelsekunde auf eine "
            "Karte. Ein Schlag, der weniger als 100 ms nach dem Erscheinen der Karte kommt, "
            "gilt als geraten, wie ein Fehlstart beim Sprint: Bei einem Treffer zählt er "
            "als später als jeder echte Schlag. (100 ms ist die Voreinstellung; ein Tisch "
            "kann eine andere Grenze festlegen.)",
        ),
        "idle": Decision(
            "Wer nicht aufdeckt",
            "Das Spiel bleibt in Bewegung: Deckst du deine Karte nicht innerhalb deiner "
            "Zugzeit auf, übernimmt der Tisch das für dich. Ein Tisch kann stattdessen für "
            "alle in einem festen Takt aufdecken.",
        ),
    },
    preset_labels={
        "classic": "Klassisch",
        "klatsch-bube": "Klatsch-Bube",
        "say-it": "Ansagen",
        "irish-snap": "Irish Snap",
        "irish-snap-winner": "Irish Snap mit Sieger",
    },
    preset_summaries={
        "classic": (
            "Slapjack nach dem englischen Regelheft: Nach einem gewonnenen Buben ist die "
            "Person links vom Gewinner dran, ein Fehlschlag kostet eine Karte an den, der "
            "die Karte gelegt hat, wer keine Karten mehr hat, kann sich mit dem nächsten "
            "Buben zurückholen, und bei genauem Gleichstand wird noch einmal geschlagen."
        ),
        "klatsch-bube": (
            "Slapjack nach dem kurzen deutschen Regelheft: Nach dem Buben geht es bei der "
            "Person nach seinem Aufdecker weiter, ein Fehlschlag legt eine Karte unter den "
            "Mittelstapel, wer keine Karten mehr hat, scheidet beim nächsten eigenen Zug "
            "aus, außer er gewinnt vorher einen Buben, und bei genauem Gleichstand wird der "
            "Stapel geteilt."
        ),
        "say-it": (
            "Klassisches Slapjack, bei dem jeder Schlag auf einen Buben den Ruf "
            "„Slapjack!“ braucht; wer ihn vergisst oder auf die falsche Karte schlägt, "
            "überlässt den Stapel den anderen."
        ),
        "irish-snap": (
            "Irish Snap: Die Ränge werden vom Ass bis zum König angesagt, geschlagen wird, "
            "wenn die Karte zur Ansage passt, und die letzte Hand muss den Stapel nehmen. "
            "Werde deine "
            "Karten los; wer als Letzter noch Karten hat, verliert die Partie."
        ),
        "irish-snap-winner": (
            "Irish Snap mit Sieger: Nach deiner letzten Karte brauchst du noch einen "
            "richtigen Schlag bei einem Treffer, ohne die letzte Hand zu sein, und wer das "
            "zuerst schafft, gewinnt."
        ),
    },
    duration_units={
        "hour": ("Stunde", "Stunden"),
        "minute": ("Minute", "Minuten"),
        "second": ("Sekunde", "Sekunden"),
    },
    and_word="und",
)
