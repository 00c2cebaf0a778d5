"""The security page: what it shows, what its forms post, that nothing a browser sent can
break out of the HTML, and where it sends a signed-out browser."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from sansio_auth.pages.security import describe_agent
from tests.sansio_auth.driver import ORIGIN, query_of
from tests.sansio_auth.oauth.fake_op import sign_in
from tests.sansio_auth.own_site import Site

AGENT = "<script>alert(1)</script> Mozilla/5.0 (Windows NT 10.0) Chrome/126.0 Safari/537.36"


class Forms(HTMLParser):
    """Each form's action and its hidden fields; each button's text and whether disabled."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, object]] = []
        self.scripts = 0
        self._button: dict[str, object] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "form":
            self.forms.append({"action": values["action"], "fields": {}, "buttons": []})
        elif tag == "input" and values.get("type") == "hidden":
            self.forms[-1]["fields"][values["name"]] = values["value"]  # type: ignore[index]
        elif tag == "button":
            self._button = {"text": "", "disabled": "disabled" in values}
            self.forms[-1]["buttons"].append(self._button)  # type: ignore[attr-defined]

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button["text"] = str(self._button["text"]) + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "button":
            self._button = None


def page(browser):
    response = browser.get(f"{browser.base}/security")
    assert response.status == 200, response
    assert ("cache-control", "private, no-cache, no-store") in response.header_list()
    parser = Forms()
    parser.feed(response.body.decode())
    return response.body.decode(), parser


def test_the_page_lists_sessions_and_accounts_with_their_forms():
    site = Site("database")
    browser = site.pair.new_browser()
    start = browser.post(f"{browser.base}/signin/op", form={"csrfToken": browser.csrf_token()})
    result = site.op.authorize(start.location, "alice")
    callback = f"{result.url}?" + "&".join(f"{k}={v}" for k, v in result.params.items())
    browser.get(callback, headers={"user-agent": AGENT, "cookie": browser.cookie_header()})
    site.browser()  # a second session of Alice's
    html, forms = page(browser)
    assert "<script>alert" not in html
    assert "&lt;script&gt;" in html  # the raw agent is in a title, escaped
    assert forms.scripts == 0
    assert "Chrome on Windows" in html
    assert "Signed in as alice@example.com" in html
    actions = [(f["action"], [b["text"] for b in f["buttons"]]) for f in forms.forms]
    assert actions == [
        (f"{ORIGIN}/auth/revoke-session", ["Sign out"]),
        (f"{ORIGIN}/auth/revoke-session", ["End"]),
        (f"{ORIGIN}/auth/revoke-other-sessions", ["End all other sessions"]),
        (f"{ORIGIN}/auth/unlink/op", ["Unlink"]),
        (f"{ORIGIN}/auth/link/op", ["Link Memory OP"]),
        (f"{ORIGIN}/auth/link/op2", ["Link Other OP"]),
        (f"{ORIGIN}/auth/delete-user", ["Delete my account"]),
    ]
    unlink = forms.forms[3]
    assert unlink["buttons"][0]["disabled"] is True  # the last way in
    assert unlink["fields"]["providerAccountId"] == "alice-sub"
    token = browser.cookies()["authjs.csrf-token"].split("%7C")[0].split("|")[0]
    assert all(f["fields"]["csrfToken"] == token for f in forms.forms)


def test_with_a_passkey_provider_the_page_registers_a_passkey():
    """The "Add a passkey" form: run by the passkey script (the page's one script), it gets
    registration options for the signed-in user and posts the passkey to the provider's
    callback, which comes back here."""
    site = Site("jwt", passkey=True)
    html, forms = page(site.browser())
    assert forms.scripts == 1
    add = next(f for f in forms.forms if f["action"] == f"{ORIGIN}/auth/callback/passkey")
    assert add["buttons"] == [{"text": "Add a passkey", "disabled": False}]
    assert add["fields"]["callbackUrl"] == f"{ORIGIN}/auth/security"
    assert f'data-webauthn-options="{ORIGIN}/auth/webauthn-options/passkey"' in html
    assert 'name="action" value="register"' in html


def test_one_session_has_no_end_all_others_button():
    site = Site("jwt")
    _, forms = page(site.browser())
    assert all(f["action"] != f"{ORIGIN}/auth/revoke-other-sessions" for f in forms.forms)


@pytest.mark.parametrize(
    ("error", "text"),
    [
        ("LastSignInMethod", "This account is your last way to sign in"),
        ("<b>made up</b>", "That did not work. Please try again."),
    ],
)
def test_a_refusal_is_shown(error, text):
    site = Site("database")
    browser = site.browser()
    html = browser.get(f"{browser.base}/security?error={error}").body.decode()
    assert text in html
    assert "<b>made up" not in html


def test_signed_out_goes_to_the_sign_in_page_and_back():
    site = Site("database")
    browser = site.browser(None)
    response = browser.get(f"{browser.base}/security")
    assert response.status == 302
    assert response.location.startswith(f"{ORIGIN}/auth/signin?")
    assert query_of(response.location) == {"callbackUrl": f"{ORIGIN}/auth/security"}
    back = sign_in(browser, site.op, callbackUrl=f"{ORIGIN}/auth/security")
    assert back.location == f"{ORIGIN}/auth/security"


def test_an_own_security_page_replaces_the_built_in_one():
    site = Site("database", pages={"security": "/account/security"})
    response = site.browser().get("/auth/security?error=LastSignInMethod")
    assert response.location == "/account/security?error=LastSignInMethod"


FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Version/17.5 Safari/604.1"
EDGE = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0 Safari/537.36 Edg/126.0"


@pytest.mark.parametrize(
    ("agent", "shown"),
    [
        (None, "Unknown device"),
        (FIREFOX, "Firefox on Linux"),
        (SAFARI, "Safari on iOS"),
        (EDGE, "Edge on Windows"),
        ("curl/8.5.0", "curl/8.5.0"),
    ],
)
def test_user_agents_are_named_briefly(agent, shown):
    assert describe_agent(agent) == shown
