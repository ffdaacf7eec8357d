"""English rules texts, in the project's own words."""

from __future__ import annotations

from ._catalog import TIME_LIMIT_OFF, TIME_LIMIT_ON, Catalog, Decision

CATALOG = Catalog(
    lang="en",
    headings={
        "how_to_play": "How to play",
        "options": "The rules at this table",
        "silent": "Where the rulebooks are silent",
        "changed": "Changed from the preset",
    },
    game_names={"slapjack": "Slapjack", "irish-snap": "Irish Snap"},
    intros={
        "slapjack": (
            "Slapjack is a race of hands. Everybody turns cards onto one shared pile "
            "in the middle, one after the other, and watches for a Jack. The moment a "
            "Jack lands on top, slap it: the quickest hand takes the whole pile. "
            "Collect every card to win."
        ),
        "irish-snap": (
            "Irish Snap turns the race around. Every card is turned up with a called "
            "rank, counting from Ace up to King and round again. When a card shows the "
            "very rank that was called, everybody slaps, and the slowest hand has to "
            "take the pile. You want to end up with no cards at all."
        ),
    },
    basics={
        "slapjack": (
            "**Cards and seats.** One ordinary deck of 52 cards, no jokers, is dealt out "
            "completely, face down, one card at a time going clockwise, so a few players may "
            "end up a card ahead. Nobody looks at their own stack.",
            "**Your turn.** Turns go clockwise. On your turn you turn the top card of "
            "your stack face up onto the centre pile. The table shows the new card to "
            "every player at the same instant, so nobody, not even you, sees it early.",
            "**A Jack!** Slap the pile as fast as you can. The quickest slap takes the "
            "entire centre pile. It goes face down under the winner's stack without being "
            "shuffled: the card that went down first will come up first.",
            "**Any other card.** Keep your hands still: slapping anything that is not a "
            "Jack is a wrong slap and costs you (see the rules below). Only your first "
            "slap on a card counts, and slapping an empty table does nothing.",
            "**Out of cards.** With an empty stack you turn up no more cards; whether you "
            "are out depends on the rules below.",
            "**The end.** When only one player is left in the game, that player has won.",
        ),
        "irish-snap": (
            "**Cards and seats.** One ordinary deck of 52 cards, no jokers, is dealt out "
            "completely, face down, one card at a time going clockwise, so a few players may "
            "end up a card ahead. Nobody looks at their own stack.",
            "**Calling the ranks.** Turns go clockwise. The first card turned up is "
            'called "Ace", the next "2", then 3 and so on through 10, Jack, Queen and '
            "King, then Ace again. The table shows the call beside every card; you do "
            "not type it.",
            "**A match.** When the card turned up has the rank that was called, every "
            "player who still takes part, the one who turned it up included, slaps. The "
            "last hand to land takes the entire pile, face down, to the bottom of their "
            "own stack. The count starts again at Ace with the player to their left.",
            "**No match.** Hands off. Whoever slaps a card that does not match picks up "
            "the pile, and the count starts again at Ace with the player to their left.",
            "**Out of cards.** What an empty stack means depends on the goal below.",
        ),
    },
    option_labels={
        "after_jack": "After a won Jack",
        "wrong_slap": "Wrong slap",
        "empty_stack": "Out of cards",
        "tie": "Exact tie",
        "time_limit": "Time limit",
        "say_it": "Say it",
        "irish_goal": "Goal",
    },
    option_help={
        "after_jack": "Who turns up the next card after somebody has won a Jack.",
        "wrong_slap": "What a slap on any card other than a Jack costs you.",
        "empty_stack": "What happens to a player whose stack has run out.",
        "tie": "What happens when the fastest slaps on a Jack are exactly equally fast.",
        "time_limit": "Play for a fixed time instead of until one player is left.",
        "say_it": 'A slap on a Jack only counts together with the call "Slapjack!".',
        "irish_goal": "How a game of Irish Snap is decided.",
    },
    value_labels={
        "after_jack": {"left_of_winner": "Left of the winner", "continue": "Carry on"},
        "wrong_slap": {"pay_player": "Pay the card's player", "pay_pile": "Pay under the pile"},
        "empty_stack": {
            "next_jack": "Wait for the next Jack",
            "until_turn": "Out at your next turn",
        },
        "tie": {"reslap": "Slap again", "split": "Share the pile"},
        "time_limit": {TIME_LIMIT_OFF: "No limit", TIME_LIMIT_ON: "{duration}"},
        "say_it": {"false": "Off", "true": "On"},
        "irish_goal": {"avoid_last": "Don't be last", "first_out": "First out wins"},
    },
    value_lines={
        "after_jack": {
            "left_of_winner": "The player to the winner's left goes next.",
            "continue": "Play carries on after the player who turned up the Jack.",
        },
        "wrong_slap": {
            "pay_player": "Your top card goes under the stack of the card's player.",
            "pay_pile": "Your top card goes face down under the centre pile.",
        },
        "empty_stack": {
            "next_jack": "You stay in and can win yourself back on the next Jack.",
            "until_turn": "You are out when your next turn comes, unless you win a Jack first.",
        },
        "tie": {
            "reslap": "The tied players slap again; the fastest of them wins.",
            "split": "The pile is shared out among the tied players.",
        },
        "time_limit": {
            TIME_LIMIT_OFF: "No time limit: play until one player is left.",
            TIME_LIMIT_ON: "After {duration} the most cards win.",
        },
        "say_it": {
            "false": "No call needed: a slap is just a slap.",
            "true": 'Call "Slapjack!" with your slap, or the others share the pile.',
        },
        "irish_goal": {
            "avoid_last": "Empty your stack to be safe; whoever is left holding cards loses.",
            "first_out": "Empty your stack, then slap one more match right: first to do so wins.",
        },
    },
    value_texts={
        "after_jack": {
            "left_of_winner": (
                "The player sitting to the left of whoever won the Jack turns up the next "
                "card. Players who have no card to turn up are passed over."
            ),
            "continue": (
                "Play simply carries on: the turn passes from the player who turned up the "
                "Jack to their left-hand neighbour, as if nothing had happened, no matter "
                "who won it."
            ),
        },
        "wrong_slap": {
            "pay_player": (
                "Slap any card other than a Jack and you pay with your top card: it goes "
                "face down under the stack of the player who turned up the card you "
                "slapped. The centre pile is not touched. Slapping your own card just "
                "moves your top card to the bottom of your stack. If you have no card "
                "left to pay with, you are out."
            ),
            "pay_pile": (
                "Slap any card other than a Jack and you pay with your top card: it goes "
                "face down under the centre pile, so whoever wins the next Jack gets it "
                "too. If you have no card left to pay with, you are out."
            ),
        },
        "empty_stack": {
            "next_jack": (
                "When your stack is empty you turn up no more cards (your turns are "
                "passed over), but you are still in. Keep watching: win the next Jack and "
                "you are back with the whole pile. If somebody else wins that Jack, or if "
                "you slap a wrong card before it comes, you are out."
            ),
            "until_turn": (
                "When your stack is empty you may still slap, but you are out as soon as "
                "your next turn comes round, unless before then you are the first to slap "
                "a Jack: then the pile is yours and you play on."
            ),
        },
        "tie": {
            "reslap": (
                "If the fastest slaps on a Jack are exactly equally fast, only the tied "
                "players slap once more, on a new signal; the fastest of them wins. "
                "A second tie gets one more new signal; if they tie a third time, seat "
                "order decides."
            ),
            "split": (
                "If the fastest slaps on a Jack are exactly equally fast, the tied players "
                "share the pile: it is dealt out among them one card at a time, oldest card "
                "first, going round in seat order from the player who turned up the Jack."
            ),
        },
        "time_limit": {
            TIME_LIMIT_OFF: "There is no time limit; the game runs until a single player remains.",
            TIME_LIMIT_ON: (
                "The game lasts {duration}. When time is up, a slap race that is still "
                "open is decided first; then whoever is still in and has the biggest "
                "stack wins. Players with equally big stacks share the win. Cards in "
                "the centre count for nobody."
            ),
        },
        "say_it": {
            "false": "No call is needed; a slap is just a slap.",
            "true": (
                'A slap on a Jack needs the call "Slapjack!" as well (its own key or '
                "button, pressed before the slap on the same card or at most a third of "
                "a second after it). Only the fastest "
                "slap matters: if it came without the call, that player forfeits. Slapping "
                "any card other than a Jack, with or without the call, is a forfeit as well. "
                "On a forfeit the centre pile is shared out among all the other players "
                "still in, one card each in turn, starting with the player to the "
                "offender's left. This takes the place of the wrong-slap rule."
            ),
        },
        "irish_goal": {
            "avoid_last": (
                "The moment you turn up your last card you are safe and leave the game. "
                "The order in which players run out of cards is the ranking. The game "
                "continues until one player alone still holds cards: that player loses."
            ),
            "first_out": (
                "Turning up your last card is not enough. You stay at the table with an "
                "empty stack (your turns are passed over) and must keep slapping at "
                "matches. The first player who, holding no cards, slaps a match and is not "
                "the last to do so wins the game. With no cards, being the last at a match "
                "or slapping a card that does not match means picking up the pile as "
                "usual and playing on."
            ),
        },
    },
    say_it_replaces_wrong_slap=(
        'Not used at this table: with "say it" a wrong slap is a forfeit (see below).'
    ),
    irish_ignores=("The Slapjack options ({names}) have no meaning in Irish Snap."),
    decisions={
        "who_starts": Decision(
            "Who starts",
            "The player who is dealt the first card turns up the first card. Who counts "
            "as the dealer is only a name.",
        ),
        "no_slap": Decision(
            "Nobody slaps a Jack",
            "If the slap window on a Jack closes without a single slap (at a table where "
            "everybody is away, say), the Jack stays in the pile, soon buried under the "
            "next cards, and play goes on with the player after the one who turned it up. "
            "Nobody won it, so nobody waiting with an empty stack is out because of it. "
            "A slap on that Jack after its window has closed is ignored.",
        ),
        "pile_returned": Decision(
            "Nobody can turn up a card",
            "It can happen that every card still in play lies in the centre and nobody "
            "left in the game holds a card. So that the game never gets stuck, the whole "
            "centre pile goes face down, oldest card first, to the player who turned up "
            "the last card, or, if that player is out, to the next player clockwise who "
            "is still in. That player goes next.",
        ),
        "pile_returned_irish": Decision(
            "Nobody can turn up a card",
            "It can happen that every card still in play lies in the centre and nobody "
            "left in the game holds a card. So that the game never gets stuck, the whole "
            "centre pile goes face down, oldest card first, to the player who turned up "
            "the last card, or, if that player is out, to the next player clockwise who "
            "is still in. That player goes next, and the count starts again at Ace.",
        ),
        "owed_to_out": Decision(
            "Paying a player who is out",
            "A wrong slap pays your top card to the player whose card you slapped. If "
            "that player has already left the game, your card goes face down under the "
            "centre pile instead.",
        ),
        "say_it_forfeit": Decision(
            "After a forfeit",
            "Play continues the way it would if the offender had just won a Jack: "
            "under `after_jack = left_of_winner` the player to the offender's left goes "
            "next; under `after_jack = continue`, the player after the one who turned up "
            "the slapped card. An offender left with no cards at all is out at once.",
        ),
        "reslap_silence": Decision(
            "Nobody slaps again after a tie",
            "If the tied players are given their new signal but none of them slaps again, "
            "or if they tie again on the third signal, seat order breaks the tie: the first "
            "of them going clockwise from the player who turned up the Jack (that player "
            "included) wins.",
        ),
        "split_turn": Decision(
            "Who goes next after a shared pile",
            "After a pile has been shared, the next turn follows the `after_jack` rule as if the "
            "first of the tied players, going clockwise from the player who turned up the "
            "Jack, had won it. The first players in that order get the extra cards when "
            "the pile does not share out evenly.",
        ),
        "irish_last": Decision(
            "Who is last",
            "The slap window on a match closes when everybody who has to slap has done "
            "so, or when its time runs out. Anyone still without a slap at that moment counts as "
            "later than everybody who did. If several players are equally late (for "
            "instance several who did not slap at all), the first of them going clockwise "
            "from the player who turned up the card, starting with that player, picks up.",
        ),
        "last_card_safe": Decision(
            "Your last card is a match",
            "You are safe the moment your last card is face up, even if it is a match: "
            "you do not have to slap it, and the others slap without you.",
        ),
        "first_out_tie": Decision(
            "Two winners at once",
            "If at the same match several players without cards slap correctly and not "
            "last, the fastest of them wins; equal times go to the first of them going "
            "clockwise from the player who turned up the card.",
        ),
        "referee": Decision(
            "The fastest hand, not the fastest connection",
            "Over a network the slap that reaches the server first is not always the slap "
            "that was made first. So your own device measures your reaction: the time "
            "from the moment the card appeared on your screen to your key press or tap. "
            "The table compares these reaction times, after checking each claim against "
            "what it saw of your connection, so a slow line costs you nothing and a "
            "tampered device gains next to nothing. The smallest reaction time wins.",
        ),
        "referee_irish": Decision(
            "The slowest hand, not the slowest connection",
            "Over a network the slap that reaches the server last is not always the slap "
            "that was made last. So your own device measures your reaction: the time "
            "from the moment the card appeared on your screen to your key press or tap. "
            "The table compares these reaction times, after checking each claim against "
            "what it saw of your connection, so a slow line does not make you last and a "
            "tampered device gains next to nothing. The largest reaction time is the last.",
        ),
        "anticipation": Decision(
            "Guessing does not pay",
            "Nobody truly reacts to a card in less than about a tenth of a second. A slap "
            "that comes less than 100 ms after the card appeared counts as a guess, like "
            "a false start in a sprint: it ranks behind every real reaction, so it cannot "
            "win a Jack. (100 ms is the default; a table may set another limit.)",
        ),
        "anticipation_irish": Decision(
            "Guessing does not pay",
            "Nobody truly reacts to a card in less than about a tenth of a second. A slap "
            "that comes less than 100 ms after the card appeared counts as a guess, like "
            "a false start in a sprint: at a match it counts as later than every real "
            "slap. (100 ms is the default; a table may set another limit.)",
        ),
        "idle": Decision(
            "A player who does not turn up a card",
            "The game keeps moving: if you do not turn up your card within your turn "
            "time, the table does it for you. A table may instead turn up cards for "
            "everybody at a fixed tempo.",
        ),
    },
    preset_labels={
        "classic": "Classic",
        "klatsch-bube": "Klatsch-Bube",
        "say-it": "Say it",
        "irish-snap": "Irish Snap",
        "irish-snap-winner": "Irish Snap with a winner",
    },
    preset_summaries={
        "classic": (
            "Slapjack as the English rulebook plays it: after a won Jack the winner's "
            "left-hand neighbour goes next, a wrong slap pays a card to the card's player, "
            "a player without cards can win back in on the next Jack, and exact ties are "
            "slapped again."
        ),
        "klatsch-bube": (
            "Slapjack as the short German rulebook plays it: play carries on after the "
            "Jack's player, a wrong slap puts a card under the centre pile, a player "
            "without cards is out at their next turn unless they win a Jack first, and "
            "exact ties share the pile."
        ),
        "say-it": (
            'Classic Slapjack where every slap on a Jack needs the call "Slapjack!"; '
            "forgetting it, or slapping a wrong card, hands the pile to the other players."
        ),
        "irish-snap": (
            "Irish Snap: call the ranks from Ace to King, slap when the card matches the "
            "call, and do not be the last hand down. Shed all your cards: whoever is "
            "left holding some at the end loses."
        ),
        "irish-snap-winner": (
            "Irish Snap with a winner: after your last card you still need one more "
            "correct slap at a match without being last, and the first to manage it wins."
        ),
    },
    duration_units={
        "hour": ("hour", "hours"),
        "minute": ("minute", "minutes"),
        "second": ("second", "seconds"),
    },
    and_word="and",
)
