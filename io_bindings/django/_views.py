"""``sign_in`` and ``sign_out``: form-action views, the runtime's server-side actions for a
form the browser posts (:mod:`sansio_auth.actions` has their rules).

The form (see the ``signin_button`` tag) posts ``provider``, ``redirectTo`` (default: the
same-site ``Referer``, else ``/``), the library's ``csrfToken`` and any credential fields;
Django's CSRF middleware checks its own token as for any view, and the engine checks its
token: both are kept. The answer is a 303 to where the engine sends the browser (the
provider, the verify-request page, ``redirectTo``; a refused credentials sign-in goes back
to the form's page with ``?error=CredentialsSignin&code=<code>``), or 403 for a form posted
from another site.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase, HttpResponseNotAllowed
from msgspec.structs import replace

from sansio_auth.actions import ActionResult

from . import _bridge
from ._handle import request_auth
from ._translate import django_response

_DJANGO_FIELDS = frozenset({"provider", "csrfmiddlewaretoken"})


async def sign_in(request: HttpRequest) -> HttpResponseBase:
    """POST ``provider``, ``redirectTo`` and any credential fields: start (or, for
    credentials, complete) a sign-in."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    state = request_auth(request).state
    form = {k: v for k, v in request.POST.items() if k not in _DJANGO_FIELDS}
    provider = request.POST.get("provider") or None
    return _answer(
        await _bridge.arun(request, lambda: state.sign_in(provider, form, form_post=True))
    )


async def sign_out(request: HttpRequest) -> HttpResponseBase:
    """POST (``redirectTo`` optional): sign out."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    state = request_auth(request).state
    form = {k: v for k, v in request.POST.items() if k not in _DJANGO_FIELDS}
    return _answer(await _bridge.arun(request, lambda: state.sign_out(form, form_post=True)))


def _answer(result: ActionResult) -> HttpResponseBase:
    """The action's answer; its cookies are the request's, which ``handle`` sets."""
    return django_response(replace(result, cookies=()))
