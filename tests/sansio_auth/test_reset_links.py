"""Forgotten passwords (docs/accounts.md): a known and an unknown address make the store and
the sender do the same work; a new password voids every reset link sent before it; a sender's
outage is a temporary failure, the same for every address."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sansio_auth.events import Action, CallAdapter, InvokeCallback, Log, VerifyPassword
from tests.sansio_auth.accounts_peer import Accounts, Outbox, build, sign_in, sign_up, verify

ANN, PW = "ann@example.com", "correct horse battery"
OAUTH_ONLY = "olga@example.com"  # an account without a password (it signed up with a provider)


def site(**options: Any) -> Accounts:
    accounts = build(rate_limits={"enabled": False}, **options)
    sign_up(accounts, ANN, PW)
    sender = accounts.pair.engine.settings.providers[0].send_email
    if isinstance(sender, Outbox):
        accounts.outbox = sender
    verify(accounts, ANN)
    accounts.adapter.store.create_user({"id": "olga", "email": OAUTH_ONLY, "email_verified": None})
    return accounts


def post(accounts: Accounts, route: str, **form: str) -> Any:
    b = accounts.browser
    return b.post(f"{accounts.base}/{route}", form={"csrfToken": b.csrf_token(), **form})


def work(actions: list[Action]) -> list[str]:
    """What the actions ask of the store, the sender and the hashing, without their values."""
    done = []
    for action in actions:
        if isinstance(action, CallAdapter):
            done.append(f"adapter {action.method}")
        elif isinstance(action, InvokeCallback):
            done.append(f"callback {action.name}")
        elif isinstance(action, VerifyPassword):
            done.append("verify a password")
        elif not isinstance(action, Log):
            done.append(type(action).__name__)
    return done


def work_of(accounts: Accounts, route: str, **form: str) -> list[str]:
    accounts.pair.performer.clear()
    post(accounts, route, **form)
    return work(accounts.pair.performer.actions)


@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(email=st.sampled_from([ANN, OAUTH_ONLY, "nobody@example.com"]))
def test_forgot_password_does_the_same_work_for_every_address(email: str) -> None:
    accounts = site()
    tokens = len(accounts.adapter.store.tokens)
    assert work_of(accounts, "forgot-password", email=email) == [
        "adapter get_user_by_email",
        "adapter get_password_hash",
        "adapter create_verification_token",
        "callback send_email",
    ]
    assert len(accounts.adapter.store.tokens) == tokens + 1  # written for every address
    assert accounts.outbox.sent[-1].kind == (
        "no-account" if email == "nobody@example.com" else "reset-password"
    )


@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(email=st.sampled_from([ANN, "nobody@example.com"]))
def test_a_forged_reset_does_the_same_work_for_every_address(email: str) -> None:
    accounts = site()
    done = work_of(
        accounts, "reset-password", email=email, token="f" * 64, password="a new passphrase"
    )
    assert done == [
        "HashPassword",
        "adapter get_user_by_email",
        "adapter get_password_hash",
        "adapter use_verification_token",
    ]


def test_the_note_to_an_unknown_address_carries_no_usable_token() -> None:
    accounts = site()
    post(accounts, "forgot-password", email="nobody@example.com")
    note = accounts.outbox.last("no-account")
    assert note.token is None
    assert "token" not in note.url
    accounts.adapter.store.create_user({"id": "late", "email": "nobody@example.com"})
    post(accounts, "forgot-password", email="nobody@example.com")  # now it has an account
    link = accounts.outbox.last("reset-password")
    assert reset(accounts, link, "a brand new passphrase").status == 200


def reset(accounts: Accounts, mail: Any, password: str) -> Any:
    form = {"token": mail.query["token"], "email": mail.query["email"], "password": password}
    return post(accounts, "reset-password", **form)


def test_a_used_reset_link_voids_every_older_one() -> None:
    accounts = site()
    post(accounts, "forgot-password", email=ANN)
    older = accounts.outbox.last("reset-password")
    post(accounts, "forgot-password", email=ANN)
    newer = accounts.outbox.last("reset-password")
    assert reset(accounts, older, "short").status == 400  # a refused password changes nothing
    assert reset(accounts, newer, "the newest passphrase").status == 200
    void = reset(accounts, older, "an older link's passphrase")
    assert void.location.endswith("/error?error=Verification")
    assert sign_in(accounts, ANN, "the newest passphrase").location == "http://localhost:3000"


def test_a_password_changed_otherwise_voids_the_reset_links_too() -> None:
    accounts = site(session={"fresh_age": 0})
    post(accounts, "forgot-password", email=ANN)
    link = accounts.outbox.last("reset-password")
    sign_in(accounts, ANN, PW)
    changed = post(accounts, "change-password", current_password=PW, new_password="changed by hand")
    assert changed.status == 200
    assert reset(accounts, link, "from the old link").location.endswith("error=Verification")


def test_a_reset_link_sets_a_first_password_once() -> None:
    """An account without a password gets one by a link; the link is void afterwards."""
    accounts = site()
    post(accounts, "forgot-password", email=OAUTH_ONLY)
    post(accounts, "forgot-password", email=OAUTH_ONLY)
    first, second = [m for m in accounts.outbox.sent if m.to == OAUTH_ONLY]
    assert reset(accounts, second, "olgas first passphrase").status == 200
    assert reset(accounts, first, "and another one").location.endswith("error=Verification")
    assert sign_in(accounts, OAUTH_ONLY, "olgas first passphrase").status == 302


class DownSender(Outbox):
    """A sender whose mail server does not answer."""

    def __call__(self, identifier: str, url: str, message: Any, kind: str, token: Any) -> None:
        if kind in ("reset-password", "no-account"):
            raise ConnectionRefusedError("the mail server is down")
        super().__call__(identifier, url, message, kind, token)


@pytest.mark.parametrize("email", [ANN, "nobody@example.com"])
def test_a_mail_outage_at_forgot_password_is_a_temporary_failure(email: str) -> None:
    accounts = site(password={"send_email": DownSender()})
    tokens = dict(accounts.adapter.store.tokens)
    accounts.pair.performer.clear()
    page = post(accounts, "forgot-password", email=email)
    assert page.status == 503
    assert b"could not be sent just now" in page.body
    assert email.encode() in page.body  # the form again, with the address typed
    assert accounts.adapter.store.tokens == tokens  # the unsent link's token went again
    logged = [a for a in accounts.pair.performer.actions if isinstance(a, Log)]
    assert [(a.level, a.code) for a in logged if a.level == "error"] == [
        ("error", "EmailSignInError")
    ]
    assert "FormError" not in {a.code for a in logged}  # the server's fault, not the form's
    b = accounts.browser
    script = b.post(
        f"{accounts.base}/forgot-password",
        json={"csrfToken": b.csrf_token(), "email": email},
    )
    assert script.status == 503
    assert script.json() == {"error": "EmailSignin"}
