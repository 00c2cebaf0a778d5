"""E-mail (magic link) sign-in through the engine (authjs-facts §6.6): the provider record,
address normalisation, the stored token, the link, single use, expiry, users, sessions,
and faults. (``test_email.py`` tests the message renderer.)"""

from __future__ import annotations

import hashlib
from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import AuthConfig, Engine, Request, Theme, jwt
from sansio_auth.errors import Configuration, MissingAdapter, MissingAdapterMethods
from sansio_auth.providers import Email, EmailProvider
from sansio_auth.providers.email import InvalidAddress, normalize_email
from tests.sansio_auth.adapter_faults import (
    FaultyAdapter,
    assert_consistent,
    rows,
    seed_session,
    seed_user,
    utc,
)
from tests.sansio_auth.driver import (
    ORIGIN,
    SECRET,
    START,
    AuthPair,
    StoredCookie,
    query_of,
    written,
)

SESSION = "authjs.session-token"
DAY = 86400
VERIFY = f"{ORIGIN}/auth/verify-request?provider=email&type=email"


class Outbox:
    """A ``send_verification_request`` that keeps every call's keyword arguments."""

    def __init__(self):
        self.sent = []

    def __call__(self, identifier, url, expires, token, provider, theme, request):
        self.sent.append(
            {
                "identifier": identifier,
                "url": url,
                "expires": expires,
                "token": token,
                "provider": provider,
                "theme": theme,
                "request": request,
            }
        )

    @property
    def link(self):
        return self.sent[-1]["url"]


def site(strategy="database", *, db=None, provider=None, **config):
    outbox = Outbox()
    db = db or FaultyAdapter()
    options = {"send_verification_request": outbox, **(provider or {})}
    config.setdefault(
        "events", {n: (lambda **m: None) for n in ("sign_in", "create_user", "update_user")}
    )
    pair = AuthPair.build(
        adapter=db,
        session={"strategy": strategy},
        providers=[Email(**options)],
        **config,
    )
    return pair, db, outbox


def ask(pair, email, browser=None, **form):
    browser = browser or pair.browser
    pair.performer.clear()
    return browser.post(
        "/auth/signin/email", form={"csrfToken": browser.csrf_token(), "email": email, **form}
    )


def follow(pair, link, browser=None):
    pair.performer.clear()
    return (browser or pair.browser).get(link)


def hashed(token, secret=SECRET):
    return hashlib.sha256((token + secret).encode()).hexdigest()


# -- the provider record -------------------------------------------------------------------------


def test_a_mapping_provider_with_defaults():
    sender = Outbox()
    pair = AuthPair.build(
        adapter=FaultyAdapter(),
        providers=[{"id": "email", "type": "email", "send_verification_request": sender}],
    )
    [provider] = pair.engine.settings.providers
    assert isinstance(provider, EmailProvider)
    assert (provider.id, provider.name, provider.type, provider.max_age) == (
        "email",
        "Email",
        "email",
        DAY,
    )
    assert pair.browser.get("/auth/providers").json()["email"] == {
        "id": "email",
        "name": "Email",
        "type": "email",
        "signinUrl": f"{ORIGIN}/auth/signin/email",
        "callbackUrl": f"{ORIGIN}/auth/callback/email",
    }
    page = pair.browser.get("/auth/signin").body.decode()
    assert 'id="input-email-for-email-provider"' in page


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"send_verification_request": "not callable"},
        {"send_verification_request": print, "max_age": 0},
        {"send_verification_request": print, "max_age": True},
        {"send_verification_request": print, "normalize_identifier": "x"},
        {"send_verification_request": print, "secret": ""},
    ],
)
def test_a_provider_that_cannot_work_is_refused_at_start_up(options):
    with pytest.raises(Configuration):
        Engine(
            AuthConfig(
                secret=SECRET,
                trust_host=True,
                adapter=FaultyAdapter(),
                providers=[Email(**options)],
            ),
            clock=lambda: START,
            entropy=bytes,
        )


def test_email_needs_an_adapter_with_its_methods():
    config = {
        "secret": SECRET,
        "trust_host": True,
        "providers": [Email(send_verification_request=print)],
    }
    with pytest.raises(MissingAdapter):
        Engine(AuthConfig(**config), clock=lambda: START, entropy=bytes)
    db = FaultyAdapter(hide={"use_verification_token", "update_user"})
    with pytest.raises(MissingAdapterMethods, match="update_user, use_verification_token"):
        Engine(
            AuthConfig(**config, adapter=db, session={"strategy": "jwt"}),
            clock=lambda: START,
            entropy=bytes,
        )


# -- asking for a link ---------------------------------------------------------------------------


def test_asking_stores_a_hashed_token_and_sends_the_link():
    pair, db, outbox = site(theme={"brand_color": "#123456"})
    response = ask(pair, " Ada@Example.COM ", callbackUrl="/after")
    assert response.status == 302
    assert response.location == VERIFY
    [sent] = outbox.sent
    assert sent["identifier"] == "ada@example.com"
    assert sent["expires"] == utc(START + DAY)
    assert sent["expires"].tzinfo is not None
    assert isinstance(sent["provider"], EmailProvider)
    assert sent["theme"] == Theme(brand_color="#123456")
    assert isinstance(sent["request"], Request)
    parts = urlsplit(sent["url"])
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{ORIGIN}/auth/callback/email"
    query = parse_qsl(parts.query)
    assert [k for k, _ in query] == ["callbackUrl", "token", "email"]
    assert dict(query) == {
        "callbackUrl": f"{ORIGIN}/after",
        "token": sent["token"],
        "email": "ada@example.com",
    }
    assert len(sent["token"]) == 64
    [stored] = db.store.tokens.values()
    assert stored == {
        "identifier": "ada@example.com",
        "token": hashed(sent["token"]),
        "expires": utc(START + DAY),
    }
    assert sent["token"] not in str(stored)
    assert rows(db.store)[:3] == (0, 0, 0)  # no user until the link is followed


def test_csrf_is_required():
    pair, db, outbox = site()
    response = pair.browser.post("/auth/signin/email", form={"email": "ada@example.com"})
    assert response.location == f"{ORIGIN}/auth/signin?error=MissingCSRF"
    assert outbox.sent == []
    assert db.calls == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("ada@example.com", "ada@example.com"),
        ("  ADA@EXAMPLE.COM\t", "ada@example.com"),
        ("ada@example.com,eve@evil.com", None),  # two @
        ("ada@example.com,evil.com", "ada@example.com"),  # CVE-2022-35924: cut at ","
        ("ada\uff20example.com", "ada@example.com"),  # fullwidth @, NFKC first
        ("victim@example.com\uff20attacker.com", None),  # GHSA-7rqj-j65f-68wh
        ("victim@example.com\ufe6battacker.com", None),  # small commercial at
        ('"eve@evil.com"@example.com', None),  # GHSA-5jpx-9hw9-2fx4
        ("eve@evil.com@example.com", None),
        ("no-at-sign", None),
        ("@example.com", None),
        ("ada@", None),
        ("ada@,", None),
        ("ada @example.com", None),
        ("ada@example.com\r\nBcc: eve@evil.com", None),
        ("", None),
        ("a" * 320 + "@example.com", None),
    ],
)
def test_addresses_are_normalised_or_refused(given, expected):
    pair, db, outbox = site()
    response = ask(pair, given)
    if expected is None:
        assert response.location == f"{ORIGIN}/auth/signin?error=EmailSignin"
        assert outbox.sent == []
        assert db.calls == []
        assert pair.performer.log_codes("error") == ["EmailSignInError"]
    else:
        assert response.location == VERIFY
        assert outbox.sent[0]["identifier"] == expected


def test_a_missing_or_non_string_address_is_refused():
    pair, _db, outbox = site()
    token = pair.browser.csrf_token()
    for body in ({"csrfToken": token}, {"csrfToken": token, "email": ["a@b.c"]}):
        response = pair.browser.post("/auth/signin/email", json=body)
        assert response.location == f"{ORIGIN}/auth/signin?error=EmailSignin"
    assert outbox.sent == []


def test_a_refused_address_goes_to_the_configured_sign_in_page():
    pair, _, _ = site(pages={"sign_in": "/login"})
    assert ask(pair, "nope").location == f"{ORIGIN}/login?error=EmailSignin"


@given(st.text(max_size=40))
def test_normalisation_is_safe_and_idempotent(text):
    try:
        address = normalize_email(text)
    except InvalidAddress:
        return
    local, domain = address.split("@")
    assert local
    assert domain
    assert "," not in domain
    assert '"' not in address
    assert not any(c.isspace() for c in address)
    assert address == address.lower()
    assert normalize_email(address) == address


def test_custom_normaliser_and_token_generator():
    async def normalize(identifier):
        return identifier.strip().upper()

    pair, db, outbox = site(
        provider={"normalize_identifier": normalize, "generate_verification_token": lambda: "T0K"}
    )
    assert ask(pair, " ada@example.com ").location == VERIFY
    assert outbox.sent[0]["identifier"] == "ADA@EXAMPLE.COM"
    assert outbox.sent[0]["token"] == "T0K"
    [stored] = db.store.tokens.values()
    assert stored["token"] == hashed("T0K")

    def refuse(identifier):
        raise ValueError("not our domain")

    pair, _, outbox = site(provider={"normalize_identifier": refuse})
    assert ask(pair, "ada@example.com").location == f"{ORIGIN}/auth/signin?error=EmailSignin"
    assert outbox.sent == []

    def broken(identifier):
        raise KeyError("a bug, not a refusal")

    pair, _, outbox = site(provider={"normalize_identifier": broken})
    assert ask(pair, "ada@example.com").location == f"{ORIGIN}/auth/error?error=Configuration"
    assert any(entry.code == "KeyError" for entry in pair.performer.logs)
    assert outbox.sent == []


def test_the_provider_secret_or_the_joined_secrets_hash_the_token():
    pair, db, outbox = site(provider={"secret": "provider-secret"})
    ask(pair, "ada@example.com")
    [stored] = db.store.tokens.values()
    assert stored["token"] == hashed(outbox.sent[0]["token"], "provider-secret")

    pair, db, outbox = site(secret=["new-secret-0123456789", "old-secret-0123456789"])
    ask(pair, "ada@example.com")
    [stored] = db.store.tokens.values()
    joined = "new-secret-0123456789,old-secret-0123456789"  # as Auth.js does
    assert stored["token"] == hashed(outbox.sent[0]["token"], joined)
    assert follow(pair, outbox.link).location == ORIGIN


def test_asking_does_not_reveal_whether_an_address_has_an_account():
    pair, db, outbox = site()
    seed_user(db.store, "u1", "known@example.com")
    answers = []
    for address in ("known@example.com", "unknown@example.com"):
        browser = pair.new_browser()
        response = ask(pair, address, browser=browser)
        answers.append(
            (
                response.status,
                response.location,
                response.body,
                sorted(c.name for c in response.cookies),
            )
        )
    assert answers[0] == answers[1]
    assert [s["identifier"] for s in outbox.sent] == ["known@example.com", "unknown@example.com"]


def test_the_sign_in_callback_is_asked_before_sending():
    seen = []

    def sign_in(user, account, email):
        seen.append((user, account, email))
        return user["email"] != "blocked@example.com"

    pair, db, outbox = site(callbacks={"sign_in": sign_in})
    seed_user(db.store, "u1", "known@example.com")
    ask(pair, "known@example.com")
    ask(pair, "new@example.com")
    known, new = seen
    assert known[0]["id"] == "u1"
    assert known[1] == {
        "provider_account_id": "known@example.com",
        "user_id": "u1",
        "type": "email",
        "provider": "email",
    }
    assert known[2] == {"verification_request": True}
    assert new[0]["email"] == "new@example.com"
    assert new[0]["email_verified"] is None
    assert "new@example.com" not in {u["email"] for u in db.store.users.values()}

    response = ask(pair, "blocked@example.com")
    assert response.location == f"{ORIGIN}/auth/error?error=AccessDenied"
    assert len(outbox.sent) == 2
    assert len(db.store.tokens) == 2


def test_a_sign_in_callback_url_redirects_without_sending():
    pair, db, outbox = site(callbacks={"sign_in": lambda: "/not-yet"})
    assert ask(pair, "ada@example.com").location == f"{ORIGIN}/not-yet"
    assert outbox.sent == []
    assert db.store.tokens == {}


def test_a_sender_that_fails_shows_the_error_page_and_leaves_no_token():
    def broken(identifier, url):
        raise ConnectionRefusedError("could not send the sign-in e-mail through smtp:25")

    pair, db, _ = site(provider={"send_verification_request": broken})
    response = ask(pair, "ada@example.com")
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert db.store.tokens == {}
    [entry] = [e for e in pair.performer.logs if e.level == "error"]
    assert "could not send the sign-in e-mail" in entry.message


def test_a_failure_to_store_the_token_sends_nothing():
    pair, db, outbox = site()
    db.fail_on("create_verification_token")
    response = ask(pair, "ada@example.com")
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert outbox.sent == []
    assert pair.performer.log_codes("error") == ["AdapterError"]


# -- following the link --------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["database", "jwt"])
def test_the_link_signs_in_a_new_user_once(strategy):
    created, signed_in = [], []
    pair, db, outbox = site(
        strategy,
        events={
            "create_user": lambda user: created.append(user),
            "sign_in": lambda **m: signed_in.append(m),
        },
    )
    ask(pair, "ada@example.com", callbackUrl="/welcome")
    pair.clock.advance(60)
    phone = pair.new_browser()  # another device: the link needs no cookie
    response = follow(pair, outbox.link, phone)
    assert response.location == f"{ORIGIN}/welcome"
    [user] = db.store.users.values()
    assert user["email"] == "ada@example.com"
    assert user["email_verified"] == utc(START + 60)
    assert created == [user]
    [event] = signed_in
    assert event["is_new_user"] is True
    assert event["account"] == {
        "provider_account_id": "ada@example.com",
        "user_id": user["id"],
        "type": "email",
        "provider": "email",
    }
    assert db.store.accounts == {}  # no account row for e-mail
    assert db.store.tokens == {}
    cookie = written(response)[SESSION]
    if strategy == "database":
        assert db.store.sessions[cookie]["user_id"] == user["id"]
    else:
        assert jwt.decode(cookie, SECRET, SESSION, now=pair.clock.now)["sub"] == user["id"]
        assert db.store.sessions == {}
    assert phone.session()["user"]["email"] == "ada@example.com"

    again = follow(pair, outbox.link, pair.new_browser())
    assert again.location == f"{ORIGIN}/auth/error?error=Verification"
    assert SESSION not in written(again)
    assert len(db.store.users) == 1


def test_the_sign_in_callback_runs_again_without_the_request_flag():
    seen = []
    pair, _db, outbox = site(callbacks={"sign_in": lambda email, user: seen.append(email) or True})
    ask(pair, "ada@example.com")
    follow(pair, outbox.link)
    assert seen == [{"verification_request": True}, None]


def test_a_known_user_is_marked_verified_and_not_new():
    updated = []
    pair, db, outbox = site(
        events={
            "update_user": lambda user: updated.append(user),
            "create_user": lambda user: 1 / 0,
        },
        pages={"new_user": "/welcome"},
    )
    seed_user(db.store, "u1", "ada@example.com", name="Ada")
    ask(pair, "ada@example.com")
    pair.clock.advance(5)
    response = follow(pair, outbox.link)
    assert response.location == ORIGIN  # not the new-user page
    assert db.store.users["u1"]["email_verified"] == utc(START + 5)
    assert updated[0]["id"] == "u1"
    assert pair.browser.session()["user"] == {
        "name": "Ada",
        "email": "ada@example.com",
        "image": None,
        "id": "u1",
    }


def test_a_new_user_goes_to_the_new_user_page():
    pair, _, outbox = site(pages={"new_user": "/welcome?tour=1"})
    ask(pair, "ada@example.com", callbackUrl="/shop")
    response = follow(pair, outbox.link)
    assert response.location == "/welcome?tour=1&callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fshop"


def test_an_expired_link_is_refused_and_used_up():
    pair, db, outbox = site(provider={"max_age": 600})
    ask(pair, "ada@example.com")
    pair.clock.advance(600)
    response = follow(pair, outbox.link)
    assert response.location == f"{ORIGIN}/auth/error?error=Verification"
    assert db.store.tokens == {}
    assert db.store.users == {}


@pytest.mark.parametrize("change", ["token", "email", "no-token", "no-email"])
def test_a_changed_link_is_refused_and_the_real_one_still_works(change):
    pair, db, outbox = site()
    ask(pair, "ada@example.com")
    link = outbox.link
    query = query_of(link)
    base = link.split("?")[0]
    forged = {
        "token": f"{base}?token={'0' * 64}&email=ada%40example.com",
        "email": f"{base}?token={query['token']}&email=eve%40example.com",
        "no-token": f"{base}?email=ada%40example.com",
        "no-email": f"{base}?token={query['token']}",
    }[change]
    response = follow(pair, forged, pair.new_browser())
    assert response.location == f"{ORIGIN}/auth/error?error=Verification"
    assert db.store.users == {}
    assert follow(pair, link).location == ORIGIN


def test_the_callback_only_answers_get():
    pair, _, outbox = site()
    ask(pair, "ada@example.com")
    response = pair.browser.post(outbox.link, form={"csrfToken": pair.browser.csrf_token()})
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"


def test_a_new_database_session_replaces_the_browsers_previous_one():
    pair, db, outbox = site()
    seed_user(db.store, "other", "other@example.com")
    seed_session(db.store, "old-session", "other", START + 30 * DAY)
    pair.browser.jar[SESSION] = StoredCookie("old-session", None)
    ask(pair, "ada@example.com")
    response = follow(pair, outbox.link)
    assert "old-session" not in db.store.sessions  # §6.6: another user's session is deleted
    [(token, row)] = db.store.sessions.items()
    assert written(response)[SESSION] == token
    assert db.store.users[row["user_id"]]["email"] == "ada@example.com"

    ask(pair, "ada@example.com")  # signed in as the same user: a fresh session all the same
    follow(pair, outbox.link)
    assert list(db.store.sessions) != [token]
    assert len(db.store.sessions) == 1


# -- faults --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method", ["use_verification_token", "get_user_by_email", "create_user", "create_session"]
)
def test_an_adapter_failure_on_the_link_leaves_no_user(method):
    pair, db, outbox = site()
    ask(pair, "ada@example.com")
    db.fail_on(method)
    response = follow(pair, outbox.link)
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert "AdapterError" in pair.performer.log_codes("error")
    assert SESSION not in written(response)
    assert db.store.users == {}
    assert db.store.sessions == {}
    assert_consistent(db.store)


def test_a_session_failure_for_a_known_user_keeps_the_user():
    pair, db, outbox = site()
    seed_user(db.store, "u1", "ada@example.com")
    ask(pair, "ada@example.com")
    db.fail_on("create_session")
    response = follow(pair, outbox.link)
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert list(db.store.users) == ["u1"]
    assert db.store.sessions == {}


def test_two_links_for_one_new_address_followed_at_once_make_one_user():
    pair, db, outbox = site()
    ask(pair, "ada@example.com")
    first = outbox.link
    ask(pair, "ada@example.com")
    second = outbox.link

    def racing_sign_up(user):
        db.store.create_user({**user, "id": "winner"})

    db.before("create_user", racing_sign_up)
    response = follow(pair, first, pair.new_browser())
    assert response.location == ORIGIN
    assert list(db.store.users) == ["winner"]
    browser = pair.new_browser()
    assert follow(pair, second, browser).location == ORIGIN
    assert list(db.store.users) == ["winner"]
    [session] = [
        s for s in db.store.sessions.values() if s["session_token"] == browser.cookies()[SESSION]
    ]
    assert session["user_id"] == "winner"
