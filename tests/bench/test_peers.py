"""The Python peers of ``make bench`` answer as the figures assume: each signed in for real
(the Authlib recipe through the local OpenID Provider) answers the user's e-mail, and 401
signed out and with its session cookie tampered (``bench.python_peers`` checks it before
it times anything; this runs those checks without the load)."""

from __future__ import annotations

import httpx
import pytest

from bench.peer_apps import missing_peers

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(missing_peers() is not None, reason=str(missing_peers())),
]


def test_every_peer_signs_in_and_refuses_signed_out_and_tampered_cookies() -> None:
    from bench.python_peers import OURS, RECIPE, signed_in_targets

    with signed_in_targets() as targets:
        assert len(targets) == 8
        for name, target in targets.items():  # checked once more, from here
            answer = httpx.get(target.url, headers={"cookie": target.cookie})
            assert answer.status_code == 200, name
            assert "@example.com" in answer.json()["email"], name
        assert "authjs.session-token=" in targets[OURS].cookie
        assert "session=" in targets[RECIPE].cookie
