"""The app the OAuth e2e tests serve (``tests/e2e_oauth``): ``uvicorn oauth_app:app`` or
``hypercorn -k trio oauth_app:app``.

Configured by the JSON file named in ``E2E_OAUTH_CONFIG``, written by the tests once the
OpenID Provider, the tampering proxy and the app's port are known:

* ``providers``: custom provider mappings (``oidc`` and ``oauth``); an ``oauth`` one gets
  :func:`oauth_profile` as its ``profile`` function (a function cannot travel in JSON);
* ``binding``: ``asyncio`` or ``trio``, the binding that serves and whose HTTP client
  backend sends the provider requests;
* ``timeouts``: the HTTP client's :class:`~io_bindings.http.Timeouts` (small, so that the
  timeout test is quick);
* ``events``: a file where the ``sign_in`` event and the ``jwt`` callback's sign-in calls
  are appended, one JSON object a line, for the tests to count and inspect.

The ``jwt`` callback keeps the provider id in the token and the ``session`` callback shows
it, so ``GET session`` tells which provider signed the user in.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from io_bindings.anyio import AuthApp
from io_bindings.http import AsyncioBackend, HTTPClient, NetworkBackend, Timeouts, TrioBackend
from sansio_auth import AuthConfig, Callbacks, Events

SECRET = "oauth-e2e-secret-that-is-long-enough-0123456789"
OPTIONS = json.loads(Path(os.environ["E2E_OAUTH_CONFIG"]).read_text())


def record(kind: str, **fields: Any) -> None:
    """Append one JSON line to the events file."""
    with open(OPTIONS["events"], "a") as file:
        file.write(json.dumps({"kind": kind, **fields}, default=str) + "\n")


def oauth_profile(profile: dict[str, Any], tokens: dict[str, Any]) -> dict[str, Any]:
    """The ``oauth`` provider's mapping from the userinfo answer to a user."""
    if not tokens.get("access_token"):
        raise ValueError("profile() was called without the token set")
    return {"id": profile["sub"], "name": f"{profile['name']} (OAuth)", "email": profile["email"]}


async def jwt(
    token: dict[str, Any], user: Any, account: Any, profile: Any, trigger: str | None
) -> dict[str, Any]:
    """On sign-in: record what the callback sees, keep the provider id in the token."""
    if trigger in ("signIn", "signUp"):
        record("jwt", trigger=trigger, user=user, account=account, profile=profile)
        token["provider"] = account["provider"]
    return token


def session_callback(session: dict[str, Any], token: dict[str, Any]) -> dict[str, Any]:
    """Show which provider signed the user in."""
    return {**session, "provider": token.get("provider")}


async def sign_in_event(user: Any, account: Any, profile: Any, is_new_user: bool) -> None:
    """Record the ``sign_in`` event."""
    record("sign_in", user=user, account=account, profile=profile, is_new_user=is_new_user)


def provider_options(options: dict[str, Any]) -> dict[str, Any]:
    if options["type"] == "oauth":
        return {"profile": oauth_profile, **options}
    return options


def make_app() -> AuthApp:
    """The app for :data:`OPTIONS`."""
    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[provider_options(p) for p in OPTIONS["providers"]],
        callbacks=Callbacks(jwt=jwt, session=session_callback),
        events=Events(sign_in=sign_in_event),
    )
    backend: NetworkBackend
    if OPTIONS["binding"] == "trio":
        from io_bindings.trio import AuthApp as TrioAuthApp

        app_class: type[AuthApp] = TrioAuthApp
        backend = TrioBackend()
    else:
        from io_bindings.asyncio import AuthApp as AsyncioAuthApp

        app_class = AsyncioAuthApp
        backend = AsyncioBackend()
    client = HTTPClient(backend, timeouts=Timeouts(**OPTIONS["timeouts"]), proxy_env={})
    return app_class(config, env={}, transport=client)


app = make_app()
