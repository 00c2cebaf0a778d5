"""``sign_in`` and ``sign_out``: form-action views that run the engine's own routes.

The form (see the ``signin_button`` tag) posts ``provider``, ``redirectTo``, the
library's ``csrfToken`` and any credential fields; Django's CSRF middleware checks its
own token as for any view, and the engine checks its token: both are kept. The view
posts the fields to ``<base>/signin/<provider>`` (``<base>/callback/<id>`` for a
credentials provider, ``<base>/signin`` without a provider) with the browser's cookies
and ``X-Auth-Return-Redirect: 1``, then redirects (303) the browser to the URL the
engine chose, with the cookies it set. A failed credentials sign-in
(``error=CredentialsSignin``) goes back to the form's page (the same-origin
``Referer``) with ``?error=CredentialsSignin&code=<code>``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from django.http import HttpRequest, HttpResponseBase, HttpResponseNotAllowed

from sansio_auth import Response

from . import _bridge
from ._handle import request_auth, see_other
from ._translate import add_cookies, django_response, engine_request

_NOT_FORWARDED = frozenset({"provider", "redirectTo", "csrfmiddlewaretoken"})


async def sign_in(request: HttpRequest) -> HttpResponseBase:
    """POST ``provider``, ``redirectTo`` (default: the ``Referer``, else ``/``) and any
    credential fields: start (or, for credentials, complete) a sign-in."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    runtime = request_auth(request).runtime
    provider_id = request.POST.get("provider") or None
    provider = runtime.settings.providers_by_id.get(provider_id) if provider_id else None
    if provider_id is None:
        route = "signin"
    elif provider is not None and provider.type == "credentials":
        route = f"callback/{quote(provider_id, safe='')}"
    else:
        route = f"signin/{quote(provider_id, safe='')}"
    response = await _post(request, route)
    url = _redirect_url(response)
    if url is None:
        return django_response(response)
    query = dict(parse_qsl(urlsplit(url).query))
    if query.get("error") == "CredentialsSignin":
        url = _back_to_form(request, query) or url
    return _redirect(url, response)


async def sign_out(request: HttpRequest) -> HttpResponseBase:
    """POST (``redirectTo`` optional, default the ``Referer``, else ``/``): sign out."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    response = await _post(request, "signout")
    url = _redirect_url(response)
    if url is None:
        return django_response(response)
    return _redirect(url, response)


async def _post(request: HttpRequest, route: str) -> Response:
    """POST the form to ``<base>/<route>`` of the engine, as this browser."""
    runtime = request_auth(request).runtime
    fields = {k: v for k, v in request.POST.items() if k not in _NOT_FORWARDED}
    fields["callbackUrl"] = request.POST.get("redirectTo") or _referer(request) or "/"
    forwarded = engine_request(
        request,
        method="POST",
        path=f"{runtime.settings.base_path}/{route}",
        query="",
        headers={
            "content-type": "application/x-www-form-urlencoded",
            "x-auth-return-redirect": "1",
        },
        omit=frozenset({"content-length"}),
        body=urlencode(fields).encode(),
    )
    answer = await _bridge.arun(request, lambda: runtime.respond(forwarded))
    assert answer is not None  # routes under base_path are always served
    return answer


def _redirect_url(response: Response) -> str | None:
    if response.status != 200 or "json" not in (response.header("content-type") or ""):
        return None
    body: Any = response.json()
    url = body.get("url") if isinstance(body, dict) else None
    return url if isinstance(url, str) else None


def _redirect(url: str, response: Response) -> HttpResponseBase:
    redirect = see_other(url)
    add_cookies(redirect, response.cookies)
    return redirect


def _referer(request: HttpRequest) -> str | None:
    """The ``Referer`` when it is a page of this site (its path and query)."""
    referer = request.headers.get("referer")
    if not referer:
        return None
    parts = urlsplit(referer)
    if f"{parts.scheme}://{parts.netloc}" != f"{request.scheme}://{request.get_host()}":
        return None
    return urlunsplit(("", "", parts.path or "/", parts.query, ""))


def _back_to_form(request: HttpRequest, error: dict[str, str]) -> str | None:
    """The form's page with ``error`` and ``code`` in its query (other params kept)."""
    page = _referer(request)
    if page is None:
        return None
    parts = urlsplit(page)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("error", "code")]
    query += [(k, error[k]) for k in ("error", "code") if k in error]
    return urlunsplit(("", "", parts.path, urlencode(query), ""))
