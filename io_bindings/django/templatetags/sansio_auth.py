"""Template tags: forms posting to the ``sign_in``/``sign_out`` views, carrying Django's
CSRF token and the library's: ``{% signin_button "github" %}``, ``{% signin_form
"credentials" %}...{% endsignin_form %}``, ``{% signout_button %}``, ``{% signout_form
%}...{% endsignout_form %}`` (see ``docs/adapters/django.md``)."""

from __future__ import annotations

from django import template
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from .._handle import request_auth

register = template.Library()


def _request(context: template.Context) -> HttpRequest:
    request = getattr(context, "request", None) or context.get("request")
    if not isinstance(request, HttpRequest):
        raise template.TemplateSyntaxError(
            "sansio_auth tags need the request: render with a RequestContext "
            "(render(request, ...) or the `request` context processor)"
        )
    return request


def _form(
    context: template.Context, page: str, fields: dict[str, str | None], inner: str
) -> SafeString:
    request = _request(context)
    hidden = {
        "csrfmiddlewaretoken": get_token(request),
        "csrfToken": request_auth(request).csrf_token(),
        **{name: value for name, value in fields.items() if value},
    }
    inputs = format_html_join("", '<input type="hidden" name="{}" value="{}">', hidden.items())
    action = page if page.startswith("/") else f"/{page}"
    return format_html('<form method="post" action="{}">{}{}</form>', action, inputs, inner)


def _button(label: str) -> SafeString:
    return format_html('<button type="submit">{}</button>', label)


@register.simple_tag(takes_context=True)
def signin_button(
    context: template.Context,
    provider: str | None = None,
    *,
    signin_page: str = "/signin",
    redirect_to: str | None = None,
    label: str | None = None,
) -> SafeString:
    """A form posting to ``sign_in`` with one submit button ("Sign in with <provider>")."""
    if label is None:
        found = request_auth(_request(context)).runtime.settings.providers_by_id.get(provider or "")
        label = f"Sign in with {found.name if found else provider}" if provider else "Sign in"
    content = _button(label)
    return signin_form(context, content, provider, signin_page=signin_page, redirect_to=redirect_to)


@register.simple_block_tag(takes_context=True)
def signin_form(
    context: template.Context,
    content: str,
    provider: str | None = None,
    *,
    signin_page: str = "/signin",
    redirect_to: str | None = None,
) -> SafeString:
    """:func:`signin_button` with the block's content (inputs, buttons) inside the form."""
    return _form(context, signin_page, {"provider": provider, "redirectTo": redirect_to}, content)


@register.simple_tag(takes_context=True)
def signout_button(
    context: template.Context,
    *,
    signout_page: str = "/signout",
    redirect_to: str | None = None,
    label: str = "Sign out",
) -> SafeString:
    """A form posting to ``sign_out`` with one submit button."""
    return _form(context, signout_page, {"redirectTo": redirect_to}, _button(label))


@register.simple_block_tag(takes_context=True)
def signout_form(
    context: template.Context,
    content: str,
    *,
    signout_page: str = "/signout",
    redirect_to: str | None = None,
) -> SafeString:
    """:func:`signout_button` with the block's content inside the form."""
    return _form(context, signout_page, {"redirectTo": redirect_to}, content)
