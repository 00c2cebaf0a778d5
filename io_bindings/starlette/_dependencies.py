"""The FastAPI dependencies of a ``HostAuth``: ``session``, ``require_session`` and
``current_user``, each usable as ``Depends(...)`` and as a plain ``await dependency(request)``.

Each is also the session cookie as a FastAPI security scheme (an ``apiKey`` in a cookie):
FastAPI's OpenAPI lists it on every operation that depends on one, so Swagger UI shows which
need a session. The dependency is the scheme itself: declaring it costs no extra dependency
per request. Without FastAPI installed they are plain callables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection

from sansio_auth.authorized import signed_in

from ._state import SCOPE_KEY, RequestState, StateVar

if TYPE_CHECKING:
    from fastapi.openapi.models import APIKey
    from fastapi.security.base import SecurityBase
else:
    try:
        from fastapi.security.base import SecurityBase
    except ImportError:  # Starlette without FastAPI

        class SecurityBase:
            """Stands in for FastAPI's base of security schemes."""


Session = dict[str, Any]
"""A session as ``GET <base_path>/session`` answers it (``user``, ``expires``, ...)."""
SCHEME = "sessionCookie"
"""The security scheme's name in the OpenAPI document."""
SECURE_SCHEME = "secureSessionCookie"
"""The other scheme, when the cookie's name depends on the request (``__Secure-`` on https)."""
DEFAULT_NAMES = ("authjs.session-token", "__Secure-authjs.session-token")


class SessionCookie(SecurityBase):
    """The session cookie as a security scheme, and the request's auth state."""

    scheme_name = SCHEME

    def __init__(self, current: StateVar) -> None:
        self.current = current

    @property  # type: ignore[override]
    def model(self) -> APIKey:
        """The scheme as FastAPI puts it in the OpenAPI document (made when FastAPI asks, from
        the config: the cookie's name may depend on it)."""
        from fastapi.openapi.models import APIKey

        name, other = cookie_names(self.current)
        about = "The session cookie that signing in sets"
        if other is not None:
            about += f" (`{other}` over https)"
        return APIKey.model_validate({"in": "cookie", "name": name, "description": about})

    @model.setter
    def model(self, value: Any) -> None:
        raise AttributeError("the session cookie's scheme follows the config")

    async def read(self, request: HTTPConnection) -> tuple[RequestState, Any]:
        """The request's auth state (the middleware's, or made now) and its session."""
        state = request.scope.get(SCOPE_KEY)
        if state is None:
            state = await self.current.state_for(request)
        # every request of a protected route comes here: no coroutine when no IO is needed
        return state, (state.data if state.read_now() else await state.session())


def cookie_names(current: StateVar) -> tuple[str, str | None]:
    """The session cookie's name and, when the request decides it (``https`` or not), the
    other one: from the fixed config's settings, else Auth.js's default names."""
    try:
        settings = current.runtimes.fixed_runtime(LookupError()).settings
    except Exception:  # a config function, or a config that fails: the defaults
        return DEFAULT_NAMES
    secure = settings.secure_cookies
    if secure is not None:
        return settings.cookies_for(secure).session_token.name, None
    return settings.cookies.session_token.name, settings.secure_cookie_set.session_token.name


class OptionalSession(SessionCookie):
    """``Depends(auth_result.session)``: the session of the request, or ``None``."""

    async def __call__(self, request: HTTPConnection) -> Session | None:
        session: Session | None = (await self.read(request))[1]
        return session


class RequiredSession(SessionCookie):
    """``Depends(auth_result.require_session)``: the session of the request when signed in
    (it has a ``user``); otherwise 401 ``{"detail": "Not signed in"}``."""

    async def __call__(self, request: HTTPConnection) -> Session:
        # self.read inlined: this runs on every request of every protected API route
        state = request.scope.get(SCOPE_KEY)
        if state is None:
            state = await self.current.state_for(request)
        session = state.data if state.read_now() else await state.session()
        if not signed_in(session):
            raise HTTPException(401, detail="Not signed in")
        return session  # type: ignore[no-any-return]


class CurrentUser(SessionCookie):
    """``Depends(auth_result.current_user)``: the signed-in user as the store keeps it (with
    SQLAlchemy, an instance of your ``User`` model; another store's record, a mapping);
    401 when signed out or when the store no longer has the user. Needs a store."""

    async def __call__(self, request: HTTPConnection) -> Any:
        state, _ = await self.read(request)
        user = await state.stored_user()
        if user is None:
            raise HTTPException(401, detail="Not signed in")
        return user
