"""Known devices (docs/security.md, "Rate limits"): a browser where an account signed in is
not locked out of it by others' attempts. Its password checks and e-mail requests for that
account count against its own limits; every other browser still counts against the
account's, and a copied device cookie guesses no faster than the device's limit."""

from __future__ import annotations

from typing import Any

from sansio_auth import jwt
from sansio_auth.providers import Credentials, Email
from sansio_auth.testing import SECRET
from tests.sansio_auth.accounts_peer import Accounts, build, sign_in, sign_up, verify
from tests.sansio_auth.driver import Browser, parse_set_cookie, set_cookie_lines

ANN, PW = "ann@example.com", "correct horse battery"
DEVICE = "authjs.known-device"
OWNER, ATTACKER, CAFE = "198.51.100.1", "203.0.113.66", "192.0.2.7"


def site(**options: Any) -> tuple[Accounts, list[str]]:
    """The default limits; a password provider and e-mail links; Ann signed up and verified
    (from her own browser, which is signed out)."""
    links: list[str] = []
    email = Email(send_verification_request=lambda identifier, url: links.append(url))
    accounts = build(providers=[email, *options.pop("providers", [])], **options)
    accounts.browser.client = OWNER
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    return accounts, links


def browser(accounts: Accounts, client: str) -> Browser:
    fresh = accounts.pair.new_browser()
    fresh.client = client
    return fresh


def post(b: Browser, route: str, **form: str) -> Any:
    return b.post(f"/auth/{route}", form={"csrfToken": b.csrf_token(), **form})


def lock_out(accounts: Accounts, account: str = ANN) -> Browser:
    """What anyone who knows the address can do: 10 wrong passwords, 5 reset requests."""
    attacker = browser(accounts, ATTACKER)
    for _ in range(10):
        sign_in(accounts, account, "not the password", attacker)
    for _ in range(5):
        post(attacker, "forgot-password", email=account)
    return attacker


def test_the_owners_browser_passes_a_lock_out_that_stops_every_other_browser() -> None:
    accounts, links = site()
    owner = accounts.browser
    assert sign_in(accounts, ANN, PW).status == 302  # the browser is now a known device of Ann
    owner.sign_out()
    attacker = lock_out(accounts)
    assert sign_in(accounts, ANN, PW, attacker).status == 429
    stranger = browser(accounts, CAFE)  # the owner on a new device, or anyone else
    assert sign_in(accounts, ANN, PW, stranger).status == 429
    assert post(stranger, "forgot-password", email=ANN).status == 429
    assert post(stranger, "signin/email", email=ANN).status == 429

    signed_in = sign_in(accounts, ANN, PW)
    assert signed_in.status == 302
    assert owner.session()["user"]["email"] == ANN
    mails = len(accounts.outbox.sent)
    assert post(owner, "forgot-password", email=ANN).location.endswith("type=reset")
    assert accounts.outbox.sent[mails:][0].kind == "reset-password"
    assert post(owner, "signin/email", email=ANN).location.endswith("type=email")
    assert "email=ann%40example.com" in links[-1]


def test_a_sign_in_by_e_mail_link_makes_the_browser_a_known_device() -> None:
    accounts, links = site()
    post(accounts.browser, "signin/email", email=ANN)  # the owner asked for a link, then
    lock_out(accounts)
    mailbox = browser(accounts, CAFE)  # opens it on another browser
    assert sign_in(accounts, ANN, PW, mailbox).status == 429
    assert mailbox.get(links[-1]).status == 302
    assert mailbox.session()["user"]["email"] == ANN
    mailbox.sign_out()
    assert sign_in(accounts, ANN, PW, mailbox).status == 302


def test_the_device_cookie_names_accounts_only_by_keyed_hashes() -> None:
    accounts, _ = site()
    response = sign_in(accounts, ANN, PW)
    [line] = [line for line in set_cookie_lines(response) if line.startswith(DEVICE + "=")]
    name, value, attributes = parse_set_cookie(line)
    assert "httponly" in attributes
    assert attributes["path"] == "/"
    assert "expires" in attributes
    assert "domain" not in attributes
    claims = jwt.decode(value, SECRET, name, now=accounts.browser.clock.now)
    assert claims["exp"] - claims["iat"] == 365 * 24 * 60 * 60
    assert "ann" not in str(claims).lower()
    assert len(claims["acc"]) == 1
    secure = accounts.pair.engine.settings.cookies_for(True).known_device
    assert secure.name == "__Host-" + DEVICE  # Secure, path /, no Domain: this host only
    assert secure.options.secure
    assert secure.options.path == "/"
    assert secure.options.domain is None


def test_a_device_spares_only_the_accounts_that_signed_in_on_it() -> None:
    accounts, _ = site()
    sign_up(accounts, "bob@example.com", "bobs own passphrase", browser(accounts, CAFE))
    verify(accounts, "bob@example.com")
    sign_in(accounts, ANN, PW)
    lock_out(accounts, "bob@example.com")
    assert sign_in(accounts, "bob@example.com", "bobs own passphrase").status == 429


def test_a_copied_device_cookie_guesses_at_the_devices_pace_and_signing_in_keeps_its_count() -> (
    None
):
    accounts, _ = site(rate_limits={"credentials_per_device": (3, 900)})
    sign_in(accounts, ANN, PW)  # the device's count is Ann's account's, not its own, so far
    thief = browser(accounts, ATTACKER)
    thief.jar[DEVICE] = accounts.browser.jar[DEVICE]
    assert [sign_in(accounts, ANN, f"guess {n}", thief).status for n in range(3)] == [302] * 3
    assert sign_in(accounts, ANN, "guess 4", thief).status == 429
    # signing in to an account of their own re-issues the cookie: it keeps the device's id,
    # so its count goes on rather than starting afresh
    sign_up(accounts, "eve@example.com", "eves own passphrase", thief)
    verify(accounts, "eve@example.com", thief)
    assert sign_in(accounts, "eve@example.com", "eves own passphrase", thief).status == 302
    assert sign_in(accounts, ANN, "guess 5", thief).status == 429
    thief.advance(900)
    assert sign_in(accounts, ANN, "guess 6", thief).status == 302


def test_an_altered_or_expired_device_cookie_counts_as_none_and_is_deleted() -> None:
    accounts, _ = site(rate_limits={"device_max_age": 600})
    owner = accounts.browser
    sign_in(accounts, ANN, PW)
    owner.sign_out()
    lock_out(accounts)
    kept = owner.jar[DEVICE]
    owner.advance(720)  # the device cookie has expired (the account's window has not)
    owner.jar[DEVICE] = type(kept)(kept.value, None)  # a browser that sends it all the same
    refused = sign_in(accounts, ANN, PW)
    assert refused.status == 429
    assert f"{DEVICE}=;" in " ".join(set_cookie_lines(refused))
    forged = browser(accounts, OWNER)
    forged.jar[DEVICE] = type(kept)(kept.value[:-4] + "AAAA", None)
    refused = sign_in(accounts, ANN, PW, forged)
    assert refused.status == 429
    assert f"{DEVICE}=;" in " ".join(set_cookie_lines(refused))


def test_no_device_cookie_with_device_max_age_0() -> None:
    accounts, _ = site(rate_limits={"device_max_age": 0})
    response = sign_in(accounts, ANN, PW)
    assert not any(line.startswith(DEVICE) for line in set_cookie_lines(response))
    accounts.browser.sign_out()
    lock_out(accounts)
    assert sign_in(accounts, ANN, PW).status == 429


def test_a_used_reset_link_makes_the_browser_a_known_device() -> None:
    """The reset links the attacker's requests sent are the owner's way back in, from any
    browser: the link proves the mailbox."""
    accounts, _ = site()
    attacker = lock_out(accounts)
    assert attacker is not None
    new_laptop = browser(accounts, CAFE)
    mail = accounts.outbox.last("reset-password")
    form = {"token": mail.query["token"], "email": ANN, "password": "a brand new passphrase"}
    assert post(new_laptop, "reset-password", **form).status == 200
    assert sign_in(accounts, ANN, "a brand new passphrase", new_laptop).status == 302
    assert new_laptop.session()["user"]["email"] == ANN
    assert sign_in(accounts, ANN, "a brand new passphrase", attacker).status == 429


def test_a_credentials_account_is_known_by_the_name_it_signs_in_with() -> None:
    def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
        if credentials.get("password") == "right":
            return {"id": credentials["username"], "email": None}
        return None

    accounts, _ = site(providers=[Credentials(authorize=authorize)])
    owner = accounts.browser

    def attempt(b: Browser, password: str) -> int:
        form = {"username": " Ada ", "password": password}
        return int(post(b, "callback/credentials", **form).status)

    assert attempt(owner, "right") == 302
    attacker = browser(accounts, ATTACKER)
    assert [attempt(attacker, "wrong") for _ in range(11)][-1] == 429
    assert attempt(owner, "right") == 302
    assert attempt(browser(accounts, CAFE), "right") == 429
