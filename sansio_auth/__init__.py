"""sansio-auth: server-side authentication as a pure, sans-IO engine.

The engine never touches a socket, a file, a clock or the environment: it is
handed a :class:`Request`, answers with actions (:mod:`sansio_auth.events`) that a
binding performs, and ends with a :class:`Response`. See ``io_bindings`` for
ready-made bindings and servers.
"""

from . import errors, events, jwt, providers
from ._flow import Flow
from .config import (
    AuthConfig,
    Callbacks,
    Events,
    JWTOptions,
    Logger,
    Pages,
    SessionOptions,
    Theme,
    TwoFactorOptions,
    skip_csrf_check,
)
from .engine import NOT_AN_AUTH_ROUTE, Engine, NotAnAuthRoute
from .errors import AccessDenied, AuthError, CredentialsSignin, MissingSecretError
from .http import Cookie, CookieOptions, Page, Request, Response, headers_from_pairs
from .settings import Settings

__version__ = "0.1.0"
"""The version of this release (also the package's version on PyPI)."""

__all__ = [
    "NOT_AN_AUTH_ROUTE",
    "AccessDenied",
    "AuthConfig",
    "AuthError",
    "Callbacks",
    "Cookie",
    "CookieOptions",
    "CredentialsSignin",
    "Engine",
    "Events",
    "Flow",
    "JWTOptions",
    "Logger",
    "MissingSecretError",
    "NotAnAuthRoute",
    "Page",
    "Pages",
    "Request",
    "Response",
    "SessionOptions",
    "Settings",
    "Theme",
    "TwoFactorOptions",
    "__version__",
    "errors",
    "events",
    "headers_from_pairs",
    "jwt",
    "providers",
    "skip_csrf_check",
]
