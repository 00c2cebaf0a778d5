"""Reading the example's pages as a browser does: the forms the template tags render."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

import httpx


@dataclass
class Form:
    action: str
    fields: dict[str, str] = field(default_factory=dict)


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self.open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.forms.append(Form(values.get("action", "")))
            self.open = True
        elif tag == "input" and self.open and values.get("type") == "hidden":
            self.forms[-1].fields[values["name"]] = values.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.open = False


def forms(html: str) -> list[Form]:
    """Every form of the page with its hidden fields."""
    parser = _Forms()
    parser.feed(html)
    return parser.forms


def form_for(http: httpx.Client, provider: str | None, page: str = "/") -> Form:
    """The sign-in form for ``provider`` (``None``: the sign-out form) on ``page``."""
    response = http.get(page)
    assert response.status_code == 200, response.text
    for form in forms(response.text):
        if provider is None and form.action == "/signout":
            return form
        if provider is not None and form.fields.get("provider") == provider:
            return form
    raise AssertionError(f"no form for {provider!r} on {page}: {response.text}")


def sign_in_with_password(
    http: httpx.Client, username: str = "demo", password: str = "demo", **headers: str
) -> httpx.Response:
    """Post the credentials form of the home page (both CSRF tokens, as rendered)."""
    form = form_for(http, "credentials")
    data = {**form.fields, "username": username, "password": password}
    return http.post(form.action, data=data, headers=headers)
