"""A slap whose stamps are older than its card (issue 12).

In a practice game a slap reached the server 298 ms after the Jack was sent but
claimed 5264 ms: the page had kept its stamp of the Jack from before the server
restarted, and the rebuilt game sent the Jack again when it went on. A
reaction longer than the card has been out cannot be one; the fair referee
ranks such a slap by its arrival less the seat's fastest round trip (never
better than an honest stamp of it), takes no strike for it and learns nothing
from it.
"""

from __future__ import annotations

import pytest

from slapjack.server.fair import STALE_SLACK_MS, FairReferee

OFFSET = 123_456.0  # the page's clock minus the server's
RTT = 20.0


def with_pings(ref: FairReferee, seat: int, rtt: float = RTT, start: float = 0.0) -> None:
    """A steady network: 20 clock-sync exchanges of ``rtt`` ms."""
    for i in range(20):
        at = start + 1_000.0 * i
        ref.on_ping_sent(seat, 1_000 * seat + i, at)
        ref.on_pong(seat, 1_000 * seat + i, at + rtt / 2 + OFFSET, at + rtt)


def page_slap(
    ref: FairReferee, seat: int, flip: int, shown: float, pressed: float, arrival: float
) -> float:
    """A page's slap: stamps on its own clock, ``reaction_ms = input_at - shown_at``."""
    detail = ref.judge(seat, flip, pressed - shown, shown + OFFSET, pressed + OFFSET, arrival)
    return detail.bounded


def test_the_practice_slap_is_ranked_by_when_the_jack_came_again() -> None:
    """A rebuilt room's referee is new: it has seen the Jack sent once, when the
    game went on. Her stamp is from 4976 ms before that; she pressed 288 ms
    after it and the slap arrived at 298 ms. The bot seat's honest 320 ms loses
    to her now; it won against the 5264 ms she claimed."""
    ref = FairReferee()
    with_pings(ref, 0)
    with_pings(ref, 1)
    went_on = 30_000.0
    for seat in (0, 1):
        ref.on_card_sent(seat, 9, went_on)
    shown, pressed = went_on - 4976.0, went_on + 288.0
    her = ref.judge(0, 9, pressed - shown, shown + OFFSET, pressed + OFFSET, went_on + 298.0)
    assert pressed - shown == 5264.0
    assert her.claimed == pytest.approx(298.0 - RTT)  # its arrival less the fastest round trip
    assert her.bounded == pytest.approx(278.0, abs=1.0)
    other = page_slap(ref, 1, 9, went_on + 10.0, went_on + 330.0, went_on + 340.0)
    assert other == pytest.approx(320.0, abs=1.0)
    assert her.bounded < other
    # no strike and nothing learnt from stamps that say nothing
    state = ref.seat(0)
    assert state.strikes == 0 and not state.held
    assert len(state.wires) == 0 and len(state.legs) == 0


def test_a_stale_stamp_never_ranks_better_than_an_honest_one() -> None:
    """The same slap (same card, same arrival) with fresh stamps and with stale
    ones: the stale one is ranked at least as slow, whatever the network."""
    for rtt in (2.0, 20.0, 80.0):
        honest, stale = FairReferee(), FairReferee()
        for ref in (honest, stale):
            with_pings(ref, 0, rtt)
            ref.on_card_sent(0, 3, 40_000.0)
        shown = 40_000.0 + rtt / 2 + 8.0  # out, then a frame
        pressed = shown + 250.0
        arrival = pressed + rtt / 2
        fair = page_slap(honest, 0, 3, shown, pressed, arrival)
        old = page_slap(stale, 0, 3, shown - 6_000.0, pressed, arrival)
        assert fair == pytest.approx(250.0, abs=1.0)
        assert fair <= old < 6_000.0


def test_a_slap_on_the_first_cue_after_a_reslap_cue_keeps_its_claim() -> None:
    """A reslap cue sends the card again; a slap timed from the first cue is not
    stale while it is shorter than the card has been out since then."""
    ref = FairReferee()
    with_pings(ref, 0)
    ref.on_card_sent(0, 5, 10_000.0)
    ref.on_card_sent(0, 5, 10_900.0)  # the reslap cue
    bounded = page_slap(ref, 0, 5, 10_018.0, 10_960.0, 10_970.0)
    assert bounded == pytest.approx(942.0, abs=1.0)  # as claimed, not cut to 70 ms


def test_within_the_slack_and_without_stamps_the_claim_stands() -> None:
    ref = FairReferee()
    with_pings(ref, 0)
    ref.on_card_sent(0, 1, 0.0)
    # a claim a little longer than the card has been out (clock rates, rounding)
    near = ref.judge(0, 1, 300.0 + STALE_SLACK_MS, OFFSET, 300.0 + STALE_SLACK_MS + OFFSET, 300.0)
    assert near.bounded == pytest.approx(350.0)
    # no stamps (a bot, a client that sends none): the claim is all there is
    ref.on_card_sent(0, 2, 1_000.0)
    assert ref.judge(0, 2, 5_000.0, None, None, 1_300.0).bounded == 5_000.0


def test_the_first_send_survives_a_reconnect_and_is_trimmed_with_the_rest() -> None:
    ref = FairReferee()
    ref.on_card_sent(0, 1, 0.0)
    ref.on_disconnect(0)
    assert ref.seat(0).first_sent == {1: 0.0}
    for flip in range(2, 20):
        ref.on_card_sent(0, flip, 100.0 * flip)
    state = ref.seat(0)
    assert list(state.first_sent) == list(state.sent)
