"""Account takeovers an audit tried over real HTTP, refused through a real server (uvicorn
serving ``tests/support/accounts_app.py``) on SQLite and Redis, with revocable JWT sessions
and with database sessions: a stale session that turns two-factor on or adds a way in, a
set-up cookie from another account, a pre-registered address, sessions that outlive their
sign-out or a password change, e-mailed codes of another sign-in, codes guessed for ever,
an e-mail link past the second factor, one issuer's subject as two accounts."""

from __future__ import annotations

import html
import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from live_server import SERVERS, LiveServer, csrf_token, free_port, serve

from sansio_auth.totp import secret_key, totp
from tests.io_bindings.email_sign_in import new_database

pytestmark = pytest.mark.e2e

FRESH = 3
"""``session.fresh_age`` of the app: a session is stale after it."""
MAX_FAILURES = 3
PW = "correct horse battery"
CASES = [("sqlite", "jwt"), ("redis", "jwt"), ("sqlite", "database"), ("redis", "database")]


class Site(NamedTuple):
    live: LiveServer
    mails: Path
    strategy: str

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.live.url, timeout=10)

    def mail(self, to: str, kind: str) -> dict[str, Any]:
        found = [m for m in _read(self.mails) if m["to"] == to and m["kind"] == kind]
        assert found, f"no {kind} mail to {to}"
        return found[-1]

    def sent(self, to: str, kind: str) -> int:
        return len([m for m in _read(self.mails) if m["to"] == to and m["kind"] == kind])


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module", params=CASES, ids=["-".join(c) for c in CASES])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    store, strategy = request.param
    mails = tmp_path_factory.mktemp("mails") / "mails.jsonl"
    port = free_port()
    with new_database(store, request, tmp_path_factory) as database:
        env = {
            "E2E_DATABASE": database,
            "ACCOUNTS_STRATEGY": strategy,
            "ACCOUNTS_MAILS": str(mails),
            "ACCOUNTS_FRESH_AGE": str(FRESH),
            "ACCOUNTS_MAX_FAILURES": str(MAX_FAILURES),
            "ACCOUNTS_ORIGIN": f"http://127.0.0.1:{port}",
        }
        command = SERVERS["uvicorn"]("accounts_app:app", port)
        with serve(command, port, env=env) as live:
            yield Site(live, mails, strategy)
            log = live.log
    assert "Traceback" not in log, log


def address(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}@example.com"


def post(client: httpx.Client, route: str, **form: str) -> httpx.Response:
    return client.post(f"/auth/{route}", data={"csrfToken": csrf_token(client), **form})


def sign_up(site: Site, client: httpx.Client, email: str, password: str = PW) -> None:
    post(client, "signup", email=email, password=password)
    client.get(site.mail(email, "verify-email")["url"])


def sign_in(client: httpx.Client, email: str, password: str = PW) -> httpx.Response:
    return post(client, "callback/password", email=email, password=password)


def session(client: httpx.Client) -> Any:
    return client.get("/auth/session").json()


def code_for(uri: str) -> str:
    secret = dict(parse_qsl(urlsplit(uri).query))["secret"]
    return totp(secret_key(secret), time.time())


def turn_on(client: httpx.Client) -> tuple[str, list[str]]:
    """Two-factor on for the signed-in user of ``client``: the app's URI, the recovery codes."""
    uri = client.get("/auth/two-factor-setup", headers={"accept": "application/json"}).json()["uri"]
    done = client.post(
        "/auth/two-factor-setup",
        data={"csrfToken": csrf_token(client), "action": "enable", "code": code_for(uri)},
        headers={"accept": "application/json"},
    )
    assert done.status_code == 200, done.text
    return uri, done.json()["recovery_codes"]


def ann(site: Site) -> tuple[httpx.Client, str]:
    """A new user, signed up, verified and signed in with her password."""
    client, email = site.client(), address("ann")
    sign_up(site, client, email)
    assert sign_in(client, email).status_code == 302
    return client, email


def error_of(response: httpx.Response) -> str | None:
    return dict(parse_qsl(urlsplit(response.headers.get("location", "")).query)).get("error")


def test_a_stale_session_cannot_turn_two_factor_on(site: Site) -> None:
    client, _ = ann(site)
    time.sleep(FRESH + 0.5)
    assert error_of(client.get("/auth/two-factor-setup")) == "SessionNotFresh"
    refused = post(client, "two-factor-setup", action="enable", code="123456")
    assert error_of(refused) == "SessionNotFresh"
    script = client.post(
        "/auth/two-factor-setup", json={"csrfToken": csrf_token(client), "action": "enable"}
    )
    assert script.status_code == 403
    assert script.json()["error"] == "SessionNotFresh"


def test_a_set_up_cookie_from_another_account_confirms_nothing(site: Site) -> None:
    victim, victim_email = ann(site)
    attacker, _ = ann(site)
    eve_uri = attacker.get("/auth/two-factor-setup", headers={"accept": "application/json"}).json()[
        "uri"
    ]
    [name] = [c for c in attacker.cookies if "two-factor-setup" in c]
    assert name.startswith("authjs.")  # http: no prefix; __Host- when secure
    victim.cookies.set(name, attacker.cookies[name])
    refused = post(victim, "two-factor-setup", action="enable", code=code_for(eve_uri))
    assert refused.status_code == 400
    victim.close()
    again = site.client()
    assert sign_in(again, victim_email).headers["location"] == site.live.url  # no second factor


def test_replacing_the_app_needs_a_code_of_the_current_factor(site: Site) -> None:
    client, _ = ann(site)
    _, codes = turn_on(client)
    new = client.get(
        "/auth/two-factor-setup?action=replace", headers={"accept": "application/json"}
    ).json()["uri"]
    wrong = post(client, "two-factor-setup", action="enable", code=code_for(new))
    assert wrong.status_code == 400
    right = post(
        client, "two-factor-setup", action="enable", code=code_for(new), current_code=codes[0]
    )
    assert right.status_code == 200
    assert "recovery codes" in right.text


def test_a_password_set_before_the_owner_proved_the_address_stops_working(site: Site) -> None:
    prey = address("prey")
    attacker, owner = site.client(), site.client()
    post(attacker, "signup", email=prey, password="the attacker's")  # never verified
    post(owner, "signin/email", email=prey)
    assert owner.get(site.mail(prey, "sign-in")["url"]).status_code == 302
    assert session(owner)["user"]["email"] == prey
    assert site.sent(prey, "sign-in-methods-removed") == 1
    refused = sign_in(attacker, prey, "the attacker's")
    assert error_of(refused) == "CredentialsSignin"
    assert session(attacker) is None


def test_a_copy_of_a_signed_out_session_reads_none(site: Site) -> None:
    client, email = ann(site)
    thief = site.client()
    thief.cookies.update(client.cookies)
    assert session(thief)["user"]["email"] == email
    post(client, "signout")
    assert session(thief) is None
    sign_in(client, email)
    copy = site.client()
    copy.cookies.update(client.cookies)
    sign_in(client, email)  # a new sign-in in the same browser ends the one it replaces
    assert session(copy) is None
    listed = client.get("/auth/sessions").json()
    assert [s["current"] for s in listed] == [True]


def test_a_password_change_ends_a_session_signed_in_the_same_second(site: Site) -> None:
    client, email = ann(site)
    other = site.client()
    assert sign_in(other, email).status_code == 302  # well within a second of the change
    changed = post(client, "change-password", current_password=PW, new_password="a new one!")
    assert changed.status_code == 200
    assert session(other) is None
    assert session(client)["user"]["email"] == email
    assert [s["current"] for s in client.get("/auth/sessions").json()] == [True]


def test_an_emailed_code_belongs_to_its_sign_in_and_only_the_last_counts(site: Site) -> None:
    client, email = ann(site)
    turn_on(client)
    post(client, "signout")
    sign_in(client, email)
    post(client, "two-factor", method="send-email")
    first = site.mail(email, "two-factor-code")["token"]
    other = site.client()
    sign_in(other, email)
    assert post(other, "two-factor", method="email", email_code=first).status_code == 400
    post(client, "two-factor", method="send-email")
    second = site.mail(email, "two-factor-code")["token"]
    if first != second:
        assert post(client, "two-factor", method="email", email_code=first).status_code == 400
    assert post(client, "two-factor", method="email", email_code=second).status_code == 302
    assert session(client)["user"]["email"] == email


def test_wrong_codes_in_a_row_lock_the_app_and_a_recovery_code_still_works(site: Site) -> None:
    client, email = ann(site)
    _, codes = turn_on(client)
    post(client, "signout")
    sign_in(client, email)
    for _ in range(MAX_FAILURES - 1):
        assert "not valid" in post(client, "two-factor", method="totp", code="000000").text
    assert "Too many wrong codes" in post(client, "two-factor", method="totp", code="000000").text
    page = client.get("/auth/two-factor").text
    assert 'name="recovery_code"' in page
    assert 'name="code"' not in page  # the app's form is gone
    done = post(client, "two-factor", method="recovery", recovery_code=codes[0])
    assert done.status_code == 302
    assert session(client)["user"]["email"] == email


def test_an_email_link_asks_for_the_second_factor(site: Site) -> None:
    client, email = ann(site)
    _, codes = turn_on(client)
    post(client, "signout")
    post(client, "signin/email", email=email)
    followed = client.get(site.mail(email, "sign-in")["url"])
    assert followed.headers["location"].endswith("/auth/two-factor")
    assert session(client) is None
    assert post(client, "two-factor", method="recovery", recovery_code=codes[0]).status_code == 302
    assert session(client)["user"]["email"] == email


def test_the_password_is_listed_and_adding_a_passkey_or_link_needs_a_fresh_sign_in(
    site: Site,
) -> None:
    client, _ = ann(site)
    [password] = client.get("/auth/accounts").json()
    assert (password["type"], password["canUnlink"]) == ("password", True)  # e-mail links too
    time.sleep(FRESH + 0.5)
    options = client.get("/auth/webauthn-options/passkey?action=register")
    assert options.status_code == 403
    assert options.json()["error"] == "SessionNotFresh"
    linking = client.post("/auth/link/demo-op", json={"csrfToken": csrf_token(client)})
    assert linking.status_code == 403


def _demo_sign_in(site: Site, client: httpx.Client, provider: str, email: str) -> httpx.Response:
    started = post(client, f"signin/{provider}")
    page = client.get(started.headers["location"])
    fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page.text)
    form = {name: html.unescape(value) for name, value in fields}
    allowed = client.post("/op/authorize", data={**form, "email": email, "decision": "allow"})
    return client.get(allowed.headers["location"])


def test_two_clients_of_one_issuer_are_one_account_and_vouch_for_the_address(
    site: Site,
) -> None:
    email = address("dora")
    laptop, phone = site.client(), site.client()
    assert _demo_sign_in(site, laptop, "demo-op", email).status_code == 302
    assert _demo_sign_in(site, phone, "demo-op-mobile", email).status_code == 302
    assert session(phone)["user"]["email"] == email
    accounts = phone.get("/auth/accounts").json()
    assert [a["provider"] for a in accounts] == ["demo-op"]  # one account, not two
