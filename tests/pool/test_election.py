"""The election's rule on its own (pure logic): best hardware wins, ties by name, terms only grow, and a claim
is only accepted with a higher term or from better hardware at the same term. Also the signing checks."""

from __future__ import annotations

import time

import pytest

from sentinel_pool.election import Claim, Election, Hardware
from sentinel_pool.signing import Unauthenticated, Verifier, sign

BIG, MID, SMALL = Hardware("big", 48_000, "H100"), Hardware("mid", 24_000, ""), Hardware("small", 8_000, "")


def test_the_best_live_daemon_claims_the_next_term_and_worse_ones_wait() -> None:
    big, mid = Election(BIG, "http://big"), Election(MID, "http://mid")
    assert not mid.step({"big": BIG, "small": SMALL})  # big is better: mid waits for its claim
    assert big.step({"mid": MID, "small": SMALL}) and big.claim and big.claim.term == 1
    assert mid.heard(big.claim, {"big": BIG}) and mid.claim == big.claim
    assert not big.step({"mid": MID})  # it already leads: no new term
    # big dies: mid is the best left and claims a term above every term it has seen
    assert mid.step({"small": SMALL}) and mid.claim and (mid.claim.leader, mid.claim.term) == ("mid", 2)


def test_terms_only_grow_and_equal_terms_go_to_the_better_hardware() -> None:
    small = Election(SMALL, "http://small")
    small.heard(Claim("mid", "http://mid", 5, time.time()), {"mid": MID})
    assert not small.heard(Claim("big", "http://big", 4, time.time()), {"big": BIG, "mid": MID})  # older term
    assert small.claim and small.claim.leader == "mid"
    assert small.heard(Claim("big", "http://big", 5, time.time()), {"big": BIG, "mid": MID})  # same term, better
    assert not small.heard(Claim("mid", "http://mid", 5, time.time()), {"big": BIG, "mid": MID})
    assert small.claim.leader == "big" and small.highest_term == 5
    assert small.step({}) and small.claim.term == 6  # alone now: the next term, never a reused one


def test_ranks_round_vram_to_gib_then_gpu_then_the_lower_name() -> None:
    assert Hardware("b", 24_100, "RTX").better_than(Hardware("a", 24_000, ""))  # same GiB: the GPU decides
    assert Hardware("a", 8_000, "").better_than(Hardware("b", 8_000, ""))  # all equal: the lower name
    assert Hardware("z", 9_300, "").better_than(Hardware("a", 8_000, "GPU"))  # more GiB first


def test_only_messages_signed_with_the_secret_and_not_replayed_are_believed() -> None:
    secret = "s" * 32
    verifier = Verifier(secret)
    header = sign(secret, "POST", "/pool/v1/hello", b"{}")
    verifier.check(header, "POST", "/pool/v1/hello", b"{}")
    with pytest.raises(Unauthenticated, match="replayed"):
        verifier.check(header, "POST", "/pool/v1/hello", b"{}")
    with pytest.raises(Unauthenticated, match="does not match"):
        verifier.check(sign(secret, "POST", "/pool/v1/hello", b"{}"), "POST", "/pool/v1/hello", b'{"x": 1}')
    with pytest.raises(Unauthenticated, match="does not match"):
        verifier.check(sign("other" * 8, "POST", "/p", b""), "POST", "/p", b"")
    with pytest.raises(Unauthenticated, match="no x-sentinel-pool-auth"):
        verifier.check(None, "POST", "/p", b"")
