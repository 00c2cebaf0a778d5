"""``sign_in``, ``sign_out`` and ``unstable_update`` for the current request: the runtime's
server-side actions (:mod:`sansio_auth.actions` has their rules), answered the Starlette way."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeAlias

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException

from sansio_auth.actions import AuthorizationParams

from ..translate import BAD_HOST, BadHost
from ._state import StateVar

Options: TypeAlias = Mapping[str, Any] | FormData
"""``sign_in``/``sign_out`` options: a mapping or a submitted form (``await request.form()``)."""


class Actions:
    """The three helpers of one ``HostAuth``, working on its current request."""

    def __init__(self, current: StateVar) -> None:
        self.current = current

    async def sign_in(
        self,
        provider: str | None = None,
        options: Options | None = None,
        authorization_params: AuthorizationParams | None = None,
    ) -> str:
        """Sign in with ``provider`` (a provider id; ``None``: go to the sign-in page).

        ``options``: ``redirect`` (default ``True``), ``redirectTo``/``redirect_to`` (where
        to land; default the same-site ``Referer``, else ``/``) and, for a credentials
        provider, the fields ``authorize`` receives (for e-mail: ``email``). With
        ``redirect=False`` returns the URL to go to (the provider's authorization URL,
        the verify-request page, ``redirectTo``, or the sign-in page); otherwise raises
        :class:`Redirect` to it. A failed sign-in raises its :class:`~sansio_auth.AuthError`
        (e.g. :class:`~sansio_auth.CredentialsSignin` with its ``code``); let through, it is
        answered as the engine answers it (the page of the form, or the error page). A
        cross-site form post is refused with 403.
        """
        state = self.current.get()
        with _bad_host_is_400():
            return state.answer(await state.sign_in(provider, options, authorization_params))

    async def sign_out(self, options: Options | None = None) -> str:
        """Sign out: the session cookie is cleared (the database session deleted).

        ``options``: ``redirect`` (default ``True``) and ``redirectTo``/``redirect_to``
        (default the same-site ``Referer``, else ``/``). Returns the URL to go to with
        ``redirect=False``; otherwise raises :class:`Redirect` to it.
        """
        state = self.current.get()
        with _bad_host_is_400():
            return state.answer(await state.sign_out(options))

    async def unstable_update(self, data: Mapping[str, Any]) -> Any:
        """Update the session with ``data``: the ``jwt`` callback runs with
        ``trigger="update"`` and ``session=data`` (database strategy: the ``session``
        callback). The refreshed cookie goes on the response; returns the new session
        (``None`` when signed out)."""
        with _bad_host_is_400():
            read = await self.current.get().update(data)
        if read.status == 403:
            raise HTTPException(403, detail=read.body.decode())
        return read.data


@contextmanager
def _bad_host_is_400() -> Iterator[None]:
    try:
        yield
    except BadHost:
        raise HTTPException(400, BAD_HOST.body.decode()) from None
