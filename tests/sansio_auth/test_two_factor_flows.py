"""Two-factor through the engine: set-up confirmed by a first code, the challenge with no
session before it, codes refused when reused, recovery codes once, the pending sign-in's
expiry and tampering, trusted devices, forced enrolment, e-mailed codes, turning it off."""

from __future__ import annotations

from typing import Any

import pytest

from sansio_auth.testing import seeded_entropy
from tests.sansio_auth.accounts_peer import Accounts, build, code_for, sign_in, sign_up, verify
from tests.sansio_auth.driver import Browser

ANN, PW = "ann@example.com", "correct horse battery"
JSON = {"accept": "application/json"}


def ann(**two_factor: Any) -> Accounts:
    accounts = build(two_factor=two_factor, events={"sign_in": lambda **_: None})
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    return accounts


def post(accounts: Accounts, route: str, browser: Browser | None = None, **form: str) -> Any:
    b = browser or accounts.browser
    return b.post(f"{accounts.base}/{route}", form={"csrfToken": b.csrf_token(), **form})


def enrol(accounts: Accounts) -> tuple[str, list[str]]:
    """Ann signs in, sets up her app and signs out; her app's URI and recovery codes."""
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    uri = b.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    answer = b.post(
        f"{accounts.base}/two-factor-setup",
        form={"csrfToken": b.csrf_token(), "action": "enable", "code": code_for(uri, b.clock.now)},
        headers=JSON,
    )
    assert answer.status == 200
    b.sign_out()
    b.advance(30)  # the next code is a new one
    return uri, answer.json()["recovery_codes"]


def test_set_up_needs_a_right_first_code_and_writes_nothing_before() -> None:
    accounts = ann()
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    page = b.get(f"{accounts.base}/two-factor-setup")
    assert b"<svg" in page.body
    assert b"otpauth://totp/localhost%3Aann@example.com?secret=" in page.body
    wrong = post(accounts, "two-factor-setup", action="enable", code="000000")
    assert wrong.status == 400
    assert accounts.adapter.store.two_factors == {}
    again = b.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    assert again.encode() in page.body.replace(b"&amp;", b"&")  # the same secret is shown again
    right = post(accounts, "two-factor-setup", action="enable", code=code_for(again, b.clock.now))
    assert right.status == 200
    assert b"data-recovery-codes" in right.body
    [record] = accounts.adapter.store.two_factors.values()
    secret = again.split("secret=")[1].split("&")[0]
    assert secret not in str(record)  # sealed
    assert len(record["recovery_codes"]) == 10


def test_sign_in_stops_at_the_challenge_without_a_session() -> None:
    accounts = ann()
    uri, _ = enrol(accounts)
    b = accounts.browser
    accounts.pair.performer.clear()
    response = sign_in(accounts, ANN, PW)
    assert response.location == "http://localhost:3000/auth/two-factor"
    assert "authjs.session-token" not in b.cookies()
    assert b.session() is None
    assert accounts.pair.performer.emitted("sign_in") == []
    challenge = b.get(f"{accounts.base}/two-factor")
    assert b'name="method" value="totp"' in challenge.body
    code = code_for(uri, b.clock.now)
    done = post(accounts, "two-factor", method="totp", code=code)
    assert done.location == "http://localhost:3000"
    assert b.session()["user"]["email"] == ANN
    assert len(accounts.pair.performer.emitted("sign_in")) == 1
    assert "authjs.two-factor" not in b.cookies()


def test_a_code_is_refused_when_reused_in_its_window() -> None:
    accounts = ann()
    uri, _ = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    code = code_for(uri, b.clock.now)
    assert post(accounts, "two-factor", method="totp", code=code).status == 302
    other = accounts.pair.new_browser()
    sign_in(accounts, ANN, PW, other)
    refused = post(accounts, "two-factor", other, method="totp", code=code)
    assert refused.status == 400
    assert b"not valid" in refused.body
    assert other.session() is None


def test_a_wrong_code_keeps_the_sign_in_waiting() -> None:
    accounts = ann()
    uri, _ = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    for bad in ("000000", "12345", "abcdef", ""):
        assert post(accounts, "two-factor", method="totp", code=bad).status == 400
    assert post(accounts, "two-factor", method="sms", code="1").status == 400
    assert (
        post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now)).status == 302
    )


def test_a_recovery_code_works_once() -> None:
    accounts = ann()
    _, codes = enrol(accounts)
    sign_in(accounts, ANN, PW)
    used = post(accounts, "two-factor", method="recovery", recovery_code=codes[3].upper())
    assert used.location == "http://localhost:3000"
    accounts.browser.sign_out()
    sign_in(accounts, ANN, PW)
    assert post(accounts, "two-factor", method="recovery", recovery_code=codes[3]).status == 400
    [record] = accounts.adapter.store.two_factors.values()
    assert len(record["recovery_codes"]) == 9


def test_the_pending_sign_in_expires() -> None:
    accounts = ann(challenge_max_age=120)
    uri, _ = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    b.advance(120 + 30)
    expired = post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    assert expired.location.endswith("/signin?error=TwoFactorExpired")
    assert b.session() is None


def test_an_altered_pending_sign_in_is_refused() -> None:
    accounts = ann()
    uri, _ = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    cookie = b.jar["authjs.two-factor"]
    value = cookie.value
    b.jar["authjs.two-factor"] = type(cookie)(
        value[:-3] + ("AAA" if value[-3:] != "AAA" else "BBB"), cookie.expires
    )
    refused = post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    assert refused.location.endswith("/signin?error=TwoFactorExpired")
    assert "authjs.two-factor" not in b.cookies()
    assert b.session() is None
    no_pending = accounts.pair.new_browser()
    assert post(accounts, "two-factor", no_pending, method="totp", code="123456").location.endswith(
        "error=TwoFactorExpired"
    )


def test_a_trusted_device_skips_the_challenge_until_set_up_again() -> None:
    accounts = ann(trust_device_days=7)
    uri, _codes = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now), trust_device="1")
    assert "authjs.trusted-device" in b.cookies()
    b.sign_out()
    assert sign_in(accounts, ANN, PW).location == "http://localhost:3000"  # no challenge
    b.sign_out()
    b.advance(8 * 24 * 3600)
    assert sign_in(accounts, ANN, PW).location.endswith("/two-factor")  # expired


def test_a_tampered_trust_cookie_is_refused_and_logged() -> None:
    accounts = ann(trust_device_days=7)
    uri, _ = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now), trust_device="1")
    b.sign_out()
    cookie = b.jar["authjs.trusted-device"]
    b.jar["authjs.trusted-device"] = type(cookie)(cookie.value[:-4] + "AAAA", cookie.expires)
    accounts.pair.performer.clear()
    assert sign_in(accounts, ANN, PW).location.endswith("/two-factor")
    assert "trusted-device-refused" in accounts.pair.performer.log_codes("warn")
    assert "authjs.trusted-device" not in b.cookies()


def test_another_users_trust_cookie_does_not_count() -> None:
    accounts = ann(trust_device_days=7)
    uri, _ = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now), trust_device="1")
    b.sign_out()
    trust = b.jar["authjs.trusted-device"]
    sign_up(accounts, "bob@example.com", "bobs passphrase")
    verify(accounts, "bob@example.com")
    sign_in(accounts, "bob@example.com", "bobs passphrase")
    bob_uri = b.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    post(accounts, "two-factor-setup", action="enable", code=code_for(bob_uri, b.clock.now))
    b.sign_out()
    b.jar["authjs.trusted-device"] = trust  # Ann's
    assert sign_in(accounts, "bob@example.com", "bobs passphrase").location.endswith("/two-factor")


def test_turning_it_off_needs_a_fresh_second_factor() -> None:
    accounts = ann()
    uri, codes = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    assert post(accounts, "two-factor-setup", action="disable", code="000000").status == 400
    assert accounts.adapter.store.two_factors != {}
    off = post(accounts, "two-factor-setup", action="disable", code=codes[0])
    assert off.status == 200
    assert accounts.adapter.store.two_factors == {}
    b.sign_out()
    assert sign_in(accounts, ANN, PW).location == "http://localhost:3000"


def test_new_recovery_codes_replace_the_old_ones() -> None:
    accounts = ann()
    uri, codes = enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    b.advance(30)
    fresh = b.post(
        f"{accounts.base}/two-factor-setup",
        form={
            "csrfToken": b.csrf_token(),
            "action": "regenerate",
            "code": code_for(uri, b.clock.now),
        },
        headers=JSON,
    ).json()["recovery_codes"]
    assert set(fresh).isdisjoint(codes)
    b.sign_out()
    sign_in(accounts, ANN, PW)
    assert post(accounts, "two-factor", method="recovery", recovery_code=codes[1]).status == 400
    assert post(accounts, "two-factor", method="recovery", recovery_code=fresh[1]).status == 302


def test_required_app_wide_a_user_sets_it_up_before_the_first_session() -> None:
    accounts = ann(require_two_factor=True)
    b = accounts.browser
    assert sign_in(accounts, ANN, PW).location.endswith("/two-factor")
    assert b.session() is None
    setup = b.get(f"{accounts.base}/two-factor", headers=JSON).json()
    assert post(accounts, "two-factor", method="enrol", code="000000").status == 400
    done = post(accounts, "two-factor", method="enrol", code=code_for(setup["uri"], b.clock.now))
    assert done.status == 200
    assert b"data-recovery-codes" in done.body
    assert b.session()["user"]["email"] == ANN


def test_an_emailed_code() -> None:
    accounts = ann(email_code=True)
    enrol(accounts)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    sent = post(accounts, "two-factor", method="send-email")
    assert b"emailed you a code" in sent.body
    mail = accounts.outbox.last("two-factor-code")
    code = mail.token
    assert code is not None
    assert code in mail.message.text
    assert (
        post(
            accounts,
            "two-factor",
            method="email",
            email_code="999999" if code != "999999" else "111111",
        ).status
        == 400
    )
    assert post(accounts, "two-factor", method="email", email_code=code).status == 302
    b.sign_out()
    sign_in(accounts, ANN, PW)
    assert post(accounts, "two-factor", method="email", email_code=code).status == 400  # used up


def test_other_providers_are_not_covered_by_default() -> None:
    accounts = ann(providers=["password"])
    assert accounts.pair.engine.settings.two_factor is not None


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"providers": ["github"]}, "unknown providers"),
        ({"trust_device_days": -1}, "trust_device_days"),
        ({"nope": 1}, "unknown keys"),
    ],
)
def test_bad_options_fail_at_start_up(options: dict, message: str) -> None:
    from sansio_auth.errors import Configuration

    with pytest.raises(Configuration, match=message):
        build(two_factor=options)


def test_the_entropy_is_the_engines() -> None:
    assert seeded_entropy(0)(4) == seeded_entropy(0)(4)


def test_a_passkey_as_second_factor() -> None:
    """A user who registered a passkey while signed in answers the challenge with it (its
    options allow only their passkeys); a replayed answer is refused."""
    import json

    from sansio_auth.providers import Passkey
    from sansio_auth.testing.webauthn import SoftAuthenticator

    accounts = build(
        two_factor={},
        providers=[Passkey()],
        experimental={"enable_webauthn": True},
    )
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    b = accounts.browser
    origin = "http://localhost:3000"
    phone = SoftAuthenticator(entropy=seeded_entropy("phone"))
    uri, _ = enrol(accounts)
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    options = b.get(f"{accounts.base}/webauthn-options/passkey?action=register").json()
    registered = post(accounts, "callback/passkey", action="register",
                      data=json.dumps(phone.respond(options, origin=origin)))  # fmt: skip
    assert registered.status == 302
    b.sign_out()

    sign_in(accounts, ANN, PW)
    page = b.get(f"{accounts.base}/two-factor").body
    assert b'data-webauthn-options="http://localhost:3000/auth/two-factor?passkey=options"' in page
    options = b.get(f"{accounts.base}/two-factor?passkey=options").json()
    assert options["action"] == "authenticate"
    assert len(options["options"]["allowCredentials"]) == 1
    answer = json.dumps(phone.respond(options, origin=origin))
    done = post(accounts, "two-factor", method="passkey", action="authenticate", data=answer)
    assert done.location == "http://localhost:3000"
    assert b.session()["user"]["email"] == ANN

    # the same answer again (its challenge cookie is used up) is refused
    b.sign_out()
    sign_in(accounts, ANN, PW)
    again = post(accounts, "two-factor", method="passkey", action="authenticate", data=answer)
    assert again.status == 400
    assert b.session() is None


def test_with_all_providers_an_email_link_sign_in_waits_for_the_second_factor() -> None:
    from sansio_auth.providers import Email

    links: list[str] = []
    accounts = build(
        two_factor={"providers": "all"},
        providers=[Email(send_verification_request=lambda url: links.append(url))],
        events={"sign_in": lambda **_: None},
    )
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    uri, _ = enrol(accounts)
    b = accounts.browser
    b.post(f"{accounts.base}/signin/email", form={"csrfToken": b.csrf_token(), "email": ANN})
    linked = b.get(links[-1])
    assert linked.location == "http://localhost:3000/auth/two-factor"
    assert b.session() is None
    done = post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    assert done.location == "http://localhost:3000"
    assert b.session()["user"]["email"] == ANN
    assert len(accounts.pair.performer.emitted("sign_in")) == 2  # enrol's sign-in, and this one
