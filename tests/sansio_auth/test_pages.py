"""The built-in pages: content, theme, escaping of every interpolated value, ``pages`` overrides."""

from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import Theme, pages
from sansio_auth.http import Page as PageRecord
from sansio_auth.i18n import ENGLISH
from sansio_auth.pages import WEBAUTHN_SCRIPT
from sansio_auth.providers import Credentials, Provider, ProviderStyle
from tests.sansio_auth.driver import ANN, ORIGIN, AuthPair, query_of, users

TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "div",
    "img",
    "p",
    "form",
    "input",
    "label",
    "button",
    "hr",
    "span",
    "a",
    "h1",
}


class Page(HTMLParser):
    """The tags, attributes and text of a page, as a browser's parser sees them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[tuple[str | None, str]] = []
        self._open: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag not in ("meta", "img", "input", "hr"):
            self._open.append(tag)

    def handle_endtag(self, tag):
        if self._open and self._open[-1] == tag:
            self._open.pop()

    def handle_data(self, data):
        self.texts.append((self._open[-1] if self._open else None, data))

    def all(self, tag):
        return [attrs for name, attrs in self.elements if name == tag]

    def text_of(self, tag):
        return [data for name, data in self.texts if name == tag]


def assert_well_formed(html: str) -> Page:
    """No markup an interpolated value made: no script but the passkey one, verbatim and
    last in the body; only known tags; no event handlers; URLs and styles of known shapes."""
    html = html.replace(f"<script>{WEBAUTHN_SCRIPT}</script></body>", "</body>", 1)
    assert "<script" not in html.lower()
    page = Page(html)
    for tag, attrs in page.elements:
        assert tag in TAGS, tag
        for name, value in attrs.items():
            assert not name.startswith("on"), name
            if name in ("href", "src", "action"):
                assert value is not None
                assert value.startswith(("http://", "https://", "/", "data:image/")), value
    for style in [attrs.get("style") for _, attrs in page.elements if attrs.get("style")]:
        for declaration in style.split(";"):
            assert declaration.split(":")[0] in (
                "--brand-color",
                "--button-text-color",
                "--provider-bg",
                "--provider-text",
            ), style
    return page


def sign_in_html(theme: Theme | None = None, **options) -> str:
    """The sign-in page of ``options`` (as :func:`pages.sign_in_context` takes them)."""
    return pages.sign_in_page(pages.sign_in_context(**options), theme or Theme(), ENGLISH)


def html_of(name: str, theme: Theme | None = None, **context) -> str:
    return pages.render(PageRecord(name, context), theme or Theme(), ENGLISH)


def credentials_pair(**options):
    fields = {"username": {"label": "User name"}, "password": {"type": "password"}}
    provider = Credentials(authorize=users(ANN), credentials=fields)
    return AuthPair.build(providers=[provider], **options)


# -- the sign-in page ------------------------------------------------------------------------


def test_sign_in_page_has_the_credentials_form():
    auth = credentials_pair()
    html = auth.browser.get("/auth/signin").body.decode()
    page = assert_well_formed(html)
    [form] = page.all("form")
    assert form == {"action": f"{ORIGIN}/auth/callback/credentials", "method": "POST"}
    inputs = page.all("input")
    token = auth.browser.csrf_token()
    assert inputs[0] == {"type": "hidden", "name": "csrfToken", "value": token}
    assert inputs[1]["name"] == "username"
    assert inputs[1]["type"] == "text"
    assert inputs[2]["type"] == "password"
    assert "callbackUrl" not in [i["name"] for i in inputs]
    assert page.text_of("label") == ["User name", "password"]
    assert page.text_of("button") == ["Sign in with Credentials"]
    assert page.text_of("title") == ["Sign In"]


def test_credentials_inputs_keep_only_harmless_attributes():
    provider = Credentials(
        authorize=lambda: None,
        credentials={
            "code": {
                "type": "image",
                "formaction": "javascript:alert(1)",
                "src": "https://evil.example/x.png",
                "style": "display:none",
                "autocomplete": "one-time-code",
                "aria-label": "Code",
                "maxlength": 6,
                "required": True,
            }
        },
    )
    html = sign_in_html(
        providers=[provider],
        signin_urls={provider.id: f"{ORIGIN}/auth/signin/credentials"},
        callback_urls={provider.id: f"{ORIGIN}/auth/callback/credentials"},
        csrf_token="t",
        callback_url=None,
    )
    [_, field] = assert_well_formed(html).all("input")
    assert field == {
        "type": "text",
        "autocomplete": "one-time-code",
        "aria-label": "Code",
        "maxlength": "6",
        "required": None,
        "name": "code",
        "id": "input-code-for-credentials-provider",
    }


def test_sign_in_page_sets_the_csrf_cookie_it_shows():
    auth = credentials_pair()
    html = auth.browser.get("/auth/signin").body.decode()
    token = auth.browser.cookies()["authjs.csrf-token"].split("%7C")[0]
    assert f'value="{token}"' in html


def test_a_credentials_provider_without_fields_is_not_shown():
    auth = AuthPair.build(providers=[Credentials(authorize=users(ANN))])
    page = Page(auth.browser.get("/auth/signin").body.decode())
    assert page.all("form") == []


@pytest.mark.parametrize(
    ("error", "message"),
    [
        ("CredentialsSignin", "Sign in failed. Check the details you provided are correct."),
        ("OAuthCallbackError", "Try signing in with a different account."),
        ("SessionRequired", "Please sign in to access this page."),
        ("MissingCSRF", "The form expired. Please try again."),
        ("<b>anything</b>", "Unable to sign in."),
    ],
)
def test_sign_in_page_error_banner(error, message):
    auth = credentials_pair()
    page = assert_well_formed(auth.browser.get(f"/auth/signin?error={error}").body.decode())
    assert page.text_of("p") == [message]


def test_sign_in_page_remembers_the_callback_url():
    auth = credentials_pair()
    response = auth.browser.get("/auth/signin?callbackUrl=/after")
    assert auth.browser.cookies()["authjs.callback-url"] == "http%3A%2F%2Flocalhost%3A3000%2Fafter"
    assert b"/after" not in response.body  # the credentials form does not carry it


def test_oauth_buttons():
    provider = Provider(
        id="acme",
        name="Acme",
        type="oauth",
        style=ProviderStyle(logo="https://acme.example/logo.svg", bg="#000", text="#fff"),
    )
    html = sign_in_html(
        providers=[provider],
        signin_urls={"acme": f"{ORIGIN}/auth/signin/acme"},
        callback_urls={"acme": f"{ORIGIN}/auth/callback/acme"},
        csrf_token="t",
        callback_url=f"{ORIGIN}/next",
    )
    page = assert_well_formed(html)
    [form] = page.all("form")
    assert form["action"] == f"{ORIGIN}/auth/signin/acme"
    assert {"type": "hidden", "name": "callbackUrl", "value": f"{ORIGIN}/next"} in page.all("input")
    assert page.all("button")[0]["style"] == "--provider-bg:#000;--provider-text:#fff"
    assert page.all("img")[0]["src"] == "https://acme.example/logo.svg"
    assert page.text_of("span") == ["Sign in with Acme"]


# -- theme -------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["auto", "dark", "light"])
def test_theme_color_scheme(scheme):
    auth = credentials_pair(theme={"color_scheme": scheme})
    page = Page(auth.browser.get("/auth/signin").body.decode())
    assert page.all("body")[0]["class"] == f"theme-{scheme}"


def test_theme_logo_brand_colour_and_button_text():
    theme = {"logo": "/static/logo.png", "brand_color": "#ff0066", "button_text": "rgb(0, 0, 0)"}
    auth = credentials_pair(theme=theme)
    for path in ("/auth/signin", "/auth/signout", "/auth/error", "/auth/verify-request"):
        page = assert_well_formed(auth.browser.get(path).body.decode())
        [body] = page.all("body")
        assert body["style"] == "--brand-color:#ff0066;--button-text-color:rgb(0, 0, 0)"
        assert page.all("img")[0] == {"class": "logo", "src": "/static/logo.png", "alt": ""}


@pytest.mark.parametrize(
    "theme",
    [
        {"brand_color": "red;background:url(//evil)"},
        {"brand_color": '"><script>alert(1)</script>'},
        {"logo": "javascript:alert(1)"},
        {"logo": 'https://x/" onerror="alert(1)'},
        {"color_scheme": 'dark" onload="alert(1)'},
    ],
)
def test_unsafe_theme_values_are_dropped(theme):
    auth = credentials_pair(theme=theme)
    page = assert_well_formed(auth.browser.get("/auth/signin").body.decode())
    [body] = page.all("body")
    assert body["class"] == "theme-auto"
    assert body["style"] == ""
    assert [img for img in page.all("img") if img.get("class") == "logo"] == []


# -- other pages -------------------------------------------------------------------------------


def test_error_page_links():
    auth = credentials_pair()
    denied = Page(auth.browser.get("/auth/error?error=AccessDenied").body.decode())
    assert denied.all("a") == [{"class": "button", "href": f"{ORIGIN}/auth/signin"}]
    assert denied.text_of("h1") == ["Access Denied"]
    other = Page(auth.browser.get("/auth/error?error=Whatever").body.decode())
    assert other.all("a") == [{"class": "button", "href": ORIGIN}]
    assert other.text_of("h1") == ["Error"]
    config = Page(auth.browser.get("/auth/error?error=Configuration").body.decode())
    assert config.text_of("h1") == ["Server error"]


def test_verify_request_page_links_home():
    page = Page(credentials_pair().browser.get("/auth/verify-request").body.decode())
    assert page.all("a") == [{"class": "button", "href": ORIGIN}]
    assert page.text_of("a") == ["localhost:3000"]


# -- pages overrides ---------------------------------------------------------------------------


def test_sign_in_override_redirects_with_the_callback_url_and_error():
    auth = credentials_pair(pages={"sign_in": "/login"})
    response = auth.browser.get("/auth/signin?callbackUrl=/dash&error=CredentialsSignin")
    assert response.status == 302
    assert response.location.startswith("/login?")
    assert query_of(response.location) == {
        "callbackUrl": f"{ORIGIN}/dash",
        "error": "CredentialsSignin",
    }


def test_sign_in_override_with_a_query_uses_an_ampersand():
    auth = credentials_pair(pages={"sign_in": "https://app.example.com/login?theme=x"})
    response = auth.browser.get("/auth/signin")
    assert response.location == (
        "https://app.example.com/login?theme=x&callbackUrl=http%3A%2F%2Flocalhost%3A3000"
    )


def test_error_override():
    auth = credentials_pair(pages={"error": "/oops"})
    assert auth.browser.get("/auth/error?error=AccessDenied").location == "/oops?error=AccessDenied"
    assert auth.browser.get("/auth/error").location == "/oops"  # no error=undefined


def test_verify_request_override_keeps_the_query():
    auth = credentials_pair(pages={"verify_request": "/check-mail"})
    response = auth.browser.get("/auth/verify-request?provider=email&type=email")
    assert response.location == "/check-mail?provider=email&type=email"


def test_sign_in_errors_go_to_the_sign_in_override():
    auth = credentials_pair(pages={"sign_in": "/login"})
    response = auth.browser.post("/auth/signin", form={})
    assert response.location == f"{ORIGIN}/login?error=MissingCSRF"


# -- properties: nothing interpolated escapes its place ------------------------------------------

any_text = st.text(max_size=40)
css_ish = st.one_of(any_text, st.sampled_from(["#fff", "rgb(1, 2, 3)", "red", "hsl(1,2%,3%)"]))
url_ish = st.one_of(any_text, st.sampled_from(["/logo.png", "https://x.example/l.svg"]))


@given(
    name=any_text,
    fields=st.dictionaries(
        any_text.filter(bool),
        st.dictionaries(any_text, st.one_of(any_text, st.booleans(), st.none()), max_size=3),
        min_size=1,
        max_size=3,
    ),
    theme=st.builds(
        Theme, color_scheme=any_text, logo=url_ish, brand_color=css_ish, button_text=css_ish
    ),
    error=any_text,
)
def test_credentials_values_never_break_out(name, fields, theme, error):
    provider = Credentials(name=name or "C", authorize=users(ANN), credentials=fields)
    html = sign_in_html(
        providers=[provider],
        signin_urls={provider.id: f"{ORIGIN}/auth/signin/credentials"},
        callback_urls={provider.id: f"{ORIGIN}/auth/callback/credentials"},
        csrf_token="t",
        callback_url=None,
        theme=theme,
        error=error,
    )
    page = assert_well_formed(html)
    labels = [str(spec.get("label") or field) for field, spec in fields.items()]
    assert page.text_of("label") == [label for label in labels if label]
    inputs = page.all("input")[1:]
    assert [i["name"] for i in inputs] == list(fields)
    assert page.text_of("button") == [f"Sign in with {name or 'C'}"]


@given(
    name=any_text,
    style=st.builds(ProviderStyle, logo=url_ish, bg=css_ish, text=css_ish, brand_color=css_ish),
    callback_url=any_text,
)
def test_oauth_values_never_break_out(name, style, callback_url):
    provider = Provider(id="p", name=name, type="oidc", style=style)
    html = sign_in_html(
        providers=[provider],
        signin_urls={"p": f"{ORIGIN}/auth/signin/p"},
        callback_urls={"p": f"{ORIGIN}/auth/callback/p"},
        csrf_token="t",
        callback_url=callback_url,
    )
    page = assert_well_formed(html)
    assert page.text_of("span") == ([f"Sign in with {name}"])
    hidden = [i for i in page.all("input") if i["name"] == "callbackUrl"]
    assert hidden == [{"type": "hidden", "name": "callbackUrl", "value": callback_url}]


@given(theme=st.builds(Theme, color_scheme=any_text, logo=url_ish, brand_color=css_ish,
                       button_text=css_ish), origin_host=any_text)  # fmt: skip
def test_other_pages_never_break_out(theme, origin_host):
    origin = f"http://{origin_host}"
    assert_well_formed(html_of("signout", theme, action_url=origin, csrf_token="t"))
    assert_well_formed(html_of("verify-request", theme, kind=None, site_url=origin))
    for error in ("AccessDenied", "Configuration", None):
        html = html_of(
            "error", theme, error=error, site_url=origin, signin_url=origin + "/signin", hint=None
        )
        assert_well_formed(html)
