"""Fuzz targets for the engine (hypothesis).

``make fuzz`` runs them with the ``long`` profile (thousands of examples); CI runs
them with the default profile.

1. Arbitrary requests (method, path, query, headers, cookies, body) never raise out
   of the engine and always produce a well-formed response.
2. A browser doing arbitrary things in any order (sign in right or wrong, read,
   update, sign out, tamper with or drop cookies, let time pass) always sees the
   session a simple model predicts: refused input never leaves a session behind.
"""

from __future__ import annotations

import string
from urllib.parse import urlencode, urlsplit

import msgspec
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from sansio_auth import CredentialsSignin, NotAnAuthRoute, Request, Response
from sansio_auth.providers import Credentials
from tests.sansio_auth.driver import ANN, ORIGIN, AuthPair, parse_set_cookie

SESSION = "authjs.session-token"
CSRF = "authjs.csrf-token"


def authorize(credentials):
    match credentials.get("username"):
        case "ann" if credentials.get("password") == "pw":
            return {k: v for k, v in ANN.items() if k not in ("username", "password")}
        case "raise":
            raise RuntimeError("authorize failed")
        case "coded":
            raise CredentialsSignin(code="coded")
        case _:
            return None


def make_pair(**options):
    fields = {"username": {"label": "User"}, "password": {"type": "password"}}
    return AuthPair.build(
        providers=[Credentials(authorize=authorize, credentials=fields)], **options
    )


# -- 1. arbitrary requests ----------------------------------------------------------------------

# What an HTTP parser can hand over: visible ASCII, space, tab and latin-1 obs-text.
header_text = st.text(
    alphabet=st.sampled_from(string.ascii_letters + string.digits + string.punctuation + " \t")
    | st.characters(min_codepoint=0x80, max_codepoint=0xFF),
    max_size=60,
)
header_names = st.one_of(
    st.sampled_from(
        [
            "cookie",
            "content-type",
            "x-forwarded-host",
            "x-forwarded-proto",
            "x-auth-return-redirect",
            "host",
            "authorization",
        ]
    ),
    st.text(alphabet=string.ascii_lowercase + "-", min_size=1, max_size=12),
)
segments = st.one_of(
    st.sampled_from(
        [
            "auth",
            "providers",
            "session",
            "csrf",
            "signin",
            "signout",
            "callback",
            "verify-request",
            "error",
            "webauthn-options",
            "credentials",
            "undefined",
            "",
            "..",
            "%2F",
            "%73ession",
        ]
    ),
    st.text(max_size=8),
)
paths = st.lists(segments, max_size=4).map(lambda parts: "/auth/" + "/".join(parts))
query_keys = st.sampled_from(["callbackUrl", "error", "code", "email", "csrfToken", "x"])
queries = st.dictionaries(query_keys | st.text(max_size=5), st.text(max_size=40), max_size=3)
body_keys = st.sampled_from(["csrfToken", "callbackUrl", "username", "password", "data"])
bodies = st.dictionaries(
    body_keys | st.text(max_size=5),
    st.one_of(st.text(max_size=40), st.integers(), st.none(), st.sampled_from(["ann", "pw"])),
    max_size=5,
)


@st.composite
def requests(draw):
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "get", "post", "HEAD"]))
    query = draw(st.one_of(st.just(""), queries.map(urlencode), st.text(max_size=30)))
    url = ORIGIN + draw(paths) + (f"?{query}" if query else "")
    headers = draw(st.dictionaries(header_names, header_text, max_size=4))
    cookies = draw(st.sampled_from(["none", "signed in", "garbage"]))
    if cookies == "signed in":
        headers["cookie"] = PAIR.browser.cookie_header()
    elif cookies == "garbage":
        headers["cookie"] = f"{SESSION}={draw(header_text)}; {CSRF}={draw(header_text)}"
    fields = draw(bodies)
    if draw(st.booleans()):
        fields["csrfToken"] = CSRF_TOKEN
    encoding = draw(st.sampled_from(["form", "json", "raw", "none"]))
    body = b""
    if encoding == "form":
        body = urlencode({k: str(v) for k, v in fields.items()}).encode()
        headers.setdefault("content-type", "application/x-www-form-urlencoded")
    elif encoding == "json":
        body = msgspec.json.encode(fields)
        headers.setdefault("content-type", "application/json")
    elif encoding == "raw":
        body = draw(st.binary(max_size=80))
    return Request(method=method, url=url, headers=headers, body=body)


PAIR = make_pair()
CSRF_TOKEN = PAIR.browser.csrf_token()
PAIR.browser.sign_in_with_credentials(username="ann", password="pw")
CONTROL = {chr(c) for c in range(0x20) if c != 0x09} | {"\x7f"}


def assert_well_formed(response: Response) -> None:
    assert isinstance(response, Response)
    assert 200 <= response.status <= 599
    assert isinstance(response.body, bytes)
    for name, value in response.header_list():
        assert name == name.lower()
        assert name
        assert not set(name) & (CONTROL | set(" :;,"))
        assert not set(value) & CONTROL, (name, value)
        value.encode("latin-1")
    for cookie in response.cookies:
        name, _, _ = parse_set_cookie(cookie.header_value())
        assert name == cookie.name
        assert not set(cookie.name) & set(" ;,=\t")
    content_type = response.header("content-type") or ""
    if content_type == "application/json":
        msgspec.json.decode(response.body)
    if response.status == 302:
        assert response.location
        assert response.body == b""
    assert b"Traceback" not in response.body


@given(data=st.data())
def test_arbitrary_requests_get_well_formed_responses(data):
    request = data.draw(requests())
    flow = PAIR.engine.handle(request)
    if isinstance(flow, NotAnAuthRoute):
        return
    response = PAIR.performer.run(flow)
    PAIR.performer.clear()
    assert_well_formed(response)


@given(
    path=st.text(max_size=30),
    scheme=st.sampled_from(["http", "https"]),
    host=st.text(
        alphabet=string.ascii_letters + string.digits + ".-:[]@%", min_size=1, max_size=20
    ),
)
def test_arbitrary_hosts_and_paths(path, scheme, host):
    url = f"{scheme}://{host}/auth/{path}"
    try:
        urlsplit(url)
    except ValueError:
        return  # no server hands over a URL it could not parse (the binding answers 400)
    flow = PAIR.engine.handle(Request(method="GET", url=url))
    if not isinstance(flow, NotAnAuthRoute):
        assert_well_formed(PAIR.performer.run(flow))
        PAIR.performer.clear()


# -- 2. a browser doing arbitrary things ----------------------------------------------------------


class BrowserMachine(RuleBasedStateMachine):
    """The model: signed in or not, and when the session was last refreshed."""

    def __init__(self):
        super().__init__()
        self.pair = make_pair(session={"max_age": 3 * 86400, "update_age": 86400})
        self.browser = self.pair.browser
        self.signed_in = False
        self.refreshed_at = self.pair.clock.now

    def _expect_session(self):
        return self.signed_in and self.pair.clock.now < self.refreshed_at + 3 * 86400

    @rule()
    def sign_in_right(self):
        response = self.browser.sign_in_with_credentials(username="ann", password="pw")
        assert response.status == 302
        self.signed_in, self.refreshed_at = True, self.pair.clock.now

    @rule(
        username=st.sampled_from(["ann", "bob", "raise", "coded", ""]), password=st.text(max_size=4)
    )
    def sign_in_wrong(self, username, password):
        assume(not (username == "ann" and password == "pw"))
        before = self.browser.cookies().get(SESSION)
        response = self.browser.sign_in_with_credentials(username=username, password=password)
        assert response.status == 302
        assert "error=" in response.location
        assert self.browser.cookies().get(SESSION) == before  # nothing half-written

    @rule(data=st.text(max_size=10))
    def post_without_csrf(self, data):
        before = self.browser.cookies().get(SESSION)
        for path in ("/auth/callback/credentials", "/auth/signout", "/auth/session"):
            form = {"username": "ann", "password": "pw", "data": data}
            self.browser.post(
                path, form=form, headers={"cookie": f"{SESSION}={before}"} if before else {}
            )
        assert self.browser.cookies().get(SESSION) == before

    @rule()
    def read(self):
        expected = self._expect_session()
        body = self.browser.session()
        assert (body is not None) == expected
        if expected and self.pair.clock.now - self.refreshed_at >= 86400:
            self.refreshed_at = self.pair.clock.now

    @rule(data=st.dictionaries(st.sampled_from(["name", "x"]), st.text(max_size=5), max_size=2))
    def update(self, data):
        response = self.browser.update_session(data)
        assert response.status == 200
        if self._expect_session():
            assert response.json() is not None
            self.refreshed_at = self.pair.clock.now
        else:
            assert response.json() is None

    @rule()
    def sign_out(self):
        assert self.browser.sign_out().status == 302
        self.signed_in = False

    @precondition(lambda self: SESSION in self.browser.jar)
    @rule(index=st.integers(min_value=0), char=st.sampled_from("AaZz09-_."))
    def tamper(self, index, char):
        stored = self.browser.jar[SESSION]
        position = index % len(stored.value)
        if stored.value[position] != char:
            stored.value = stored.value[:position] + char + stored.value[position + 1 :]
            self.signed_in = False

    @rule()
    def drop_cookies(self):
        self.browser.jar.clear()
        self.signed_in = False

    @rule(seconds=st.sampled_from([1, 3600, 86399, 86400, 2 * 86400, 4 * 86400]))
    def wait(self, seconds):
        self.pair.clock.advance(seconds)

    @invariant()
    def session_cookie_is_never_empty(self):
        stored = self.browser.jar.get(SESSION)
        assert stored is None or stored.value


TestBrowserMachine = BrowserMachine.TestCase
