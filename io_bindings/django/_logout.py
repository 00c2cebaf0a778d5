"""Django's ``logout()`` (the admin's "Log out" too) ends the sansio-auth session: a receiver
of ``user_logged_out``, connected when :mod:`io_bindings.django` is imported, signs the
request out (:meth:`~io_bindings.django.RequestAuth.sign_out`) when the auth ``handle``
serves it. The response carries the deleted session cookie (``handle`` adds it).

Not for the signal the engine's own sign-outs send (:mod:`.orm.signals`): those run while a
runtime call serves the request (:func:`._bridge.current_request`), and the session is ending
already."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_out

from . import _bridge
from ._handle import RequestAuth


def end_session(sender: Any, request: Any = None, **_: Any) -> None:
    """End the session of ``request`` when ``handle`` serves it (a ``user_logged_out``
    receiver)."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, RequestAuth) and _bridge.current_request() is None:
        auth.sign_out()


user_logged_out.connect(end_session, dispatch_uid="sansio_auth.end_session")
