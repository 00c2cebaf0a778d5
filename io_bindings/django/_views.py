"""``sign_in`` and ``sign_out``: form-action views, the runtime's server-side actions for a
form the browser posts (``form_post``: the rules are :mod:`sansio_auth.actions`'s).

The form (see the ``signin_button`` tag) posts ``provider``, ``redirectTo`` (default: the
same-site ``Referer``, else ``/``), the library's ``csrfToken`` and any credential fields;
Django's CSRF middleware checks its own token as for any view, the engine checks its own.
The answer is the engine's: a 303 to the provider, the verify-request page or
``redirectTo`` (a refused credentials sign-in goes back to the form's page with
``?error=CredentialsSignin&code=<code>``), or 403 for a form posted from another site.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase, HttpResponseNotAllowed
from msgspec.structs import replace

from . import _bridge
from ._handle import request_auth
from ._translate import django_response


async def sign_in(request: HttpRequest) -> HttpResponseBase:
    """POST ``provider``, ``redirectTo`` and any credential fields: start (or, for
    credentials, complete) a sign-in."""
    return await _act(request, sign_in=True)


async def sign_out(request: HttpRequest) -> HttpResponseBase:
    """POST (``redirectTo`` optional): sign out."""
    return await _act(request, sign_in=False)


async def _act(request: HttpRequest, *, sign_in: bool) -> HttpResponseBase:
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    state = request_auth(request).state
    form = {k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}  # Django's
    result = await _bridge.arun(request, lambda: state.form_post(form, sign_in=sign_in))
    return django_response(replace(result, cookies=()))  # the request's: `handle` sets them
