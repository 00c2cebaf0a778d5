"""The default sign-in e-mail: exact subject and text, HTML that cannot be injected into."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import Theme
from sansio_auth.email import (
    DEFAULT_BRAND_COLOR,
    DEFAULT_BUTTON_TEXT,
    link_host,
    verification_message,
)

URL = (
    "https://app.example.com/auth/callback/email?callbackUrl=%2F&token=tok&email=ada%40example.com"
)
HEADING, BUTTON, FOOTER = (
    ["tr", "td", "strong"],
    ["tr", "td", "table", "tr", "td", "a"],
    ["tr", "td"],
)
TEMPLATE_TAGS = ["body", "table", *HEADING, *BUTTON, *FOOTER]


class Reader(HTMLParser):
    """The start tags, links, visible text and inline styles of a document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.text = ""
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(name, value or "") for name, value in attrs]
        self.hrefs += [value or "" for name, value in attrs if name == "href"]

    def handle_data(self, data: str) -> None:
        self.text += data


def read(html: str) -> Reader:
    reader = Reader()
    reader.feed(html)
    reader.close()
    return reader


def test_subject_and_text_are_those_of_authjs() -> None:
    message = verification_message(URL, "app.example.com")
    assert message.subject == "Sign in to app.example.com"
    assert message.text == f"Sign in to app.example.com\n{URL}\n\n"


def test_html_names_the_host_unlinkable_and_links_the_button() -> None:
    message = verification_message(URL, "app.example.com:8443")
    assert "Sign in to <strong>app&#8203;.example&#8203;.com:8443</strong>" in message.html
    page = read(message.html)
    assert page.tags == TEMPLATE_TAGS
    assert page.hrefs == [URL]
    assert "Sign in to app\u200b.example\u200b.com:8443" in page.text
    assert "If you did not request this email you can safely ignore it." in page.text


def test_theme_colours_and_their_defaults() -> None:
    plain = verification_message(URL, "h").html
    assert f'bgcolor="{DEFAULT_BRAND_COLOR}"' in plain
    assert f"border:1px solid {DEFAULT_BRAND_COLOR}" in plain
    assert f"color:{DEFAULT_BUTTON_TEXT};" in plain
    themed = verification_message(URL, "h", Theme(brand_color="rebeccapurple", button_text="#000"))
    assert 'bgcolor="rebeccapurple"' in themed.html
    assert "color:#000;" in themed.html
    assert DEFAULT_BRAND_COLOR not in themed.html


def test_a_colour_that_is_not_a_colour_falls_back_to_the_default() -> None:
    theme = Theme(brand_color='red" onclick="alert(1)', button_text="#fff;background:url(x)")
    page = read(verification_message(URL, "h", theme).html)
    assert ("bgcolor", DEFAULT_BRAND_COLOR) in page.attrs
    assert all(not name.startswith("on") for name, _ in page.attrs)
    assert "url(x)" not in verification_message(URL, "h", theme).html


def test_the_address_is_not_rendered() -> None:
    """GHSA-pgjx-7f9g-9463: only the link carries the address, percent-encoded."""
    url = URL.replace("ada%40example.com", "%3Cb%3Eevil%3C%2Fb%3E%40example.com")
    message = verification_message(url, "app.example.com")
    assert "<b>" not in message.html
    assert "evil" not in read(message.html).text


def test_link_host_is_the_host_and_port_of_the_link() -> None:
    assert link_host(URL) == "app.example.com"
    assert link_host("http://127.0.0.1:8000/auth/x") == "127.0.0.1:8000"
    assert link_host("http://user:pw@[::1]:8080/") == "[::1]:8080"


@given(url=st.text(), host=st.text(), brand=st.text(), button=st.text())
def test_nothing_given_can_add_markup(url: str, host: str, brand: str, button: str) -> None:
    message = verification_message(url, host, Theme(brand_color=brand, button_text=button))
    page = read(message.html)
    assert page.tags == TEMPLATE_TAGS
    assert page.hrefs == [url]
    shown_host = host.replace(".", "\u200b.")
    assert f"Sign in to {shown_host}" in page.text
    assert all(not name.startswith("on") for name, _ in page.attrs)
