"""A testing kit for your own tests: drive the engine in memory, deterministically.

- :class:`Browser` — a cookie jar that signs in (``browser.sign_in("credentials", ...)``,
  ``browser.sign_in("op")``), reads the session, signs out, on a fixed :class:`Clock`
  you can :meth:`~Clock.advance` and seeded entropy;
- :class:`MemoryOP` — an OpenID Provider in memory, with switches to misbehave;
- :class:`SoftAuthenticator` — a WebAuthn authenticator (passkeys) in memory;
- :mod:`~sansio_auth.testing.strategies` — hypothesis strategies (requests, provider
  responses, users, profiles);
- :class:`AuthStateMachine` — a ready stateful test to subclass with your configuration;
- :mod:`~sansio_auth.testing.pytest_plugin` — the ``auth_browser`` and ``memory_op`` fixtures.

Like the engine it does no IO and reads no clock. ``strategies`` and ``AuthStateMachine``
need ``hypothesis`` (a test dependency): they are imported only when asked for.
See ``docs/testing.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._clock import START, Clock, seeded_entropy
from .accounts import ANN, authorize_from
from .browser import ORIGIN, Browser
from .op import ALICE, FAULTS, AuthorizationResult, AuthorizeRefused, Fault, MemoryOP
from .performer import Performer, step
from .webauthn import SoftAuthenticator

if TYPE_CHECKING:
    from . import strategies
    from .state_machine import AuthStateMachine

SECRET = "test-secret-0123456789abcdef0123456789"  # noqa: S105 - for tests only
"""An ``AUTH_SECRET`` for tests (never use it for anything else)."""

__all__ = [
    "ALICE",
    "ANN",
    "FAULTS",
    "ORIGIN",
    "SECRET",
    "START",
    "AuthStateMachine",
    "AuthorizationResult",
    "AuthorizeRefused",
    "Browser",
    "Clock",
    "Fault",
    "MemoryOP",
    "Performer",
    "SoftAuthenticator",
    "authorize_from",
    "seeded_entropy",
    "step",
    "strategies",
]


def __getattr__(name: str) -> Any:
    """``AuthStateMachine`` on first use (it imports hypothesis; so does the
    ``strategies`` submodule, which ``from sansio_auth.testing import strategies`` imports)."""
    if name == "AuthStateMachine":
        from .state_machine import AuthStateMachine

        return AuthStateMachine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
