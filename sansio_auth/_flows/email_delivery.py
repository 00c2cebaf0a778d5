"""How the e-mails of sign-in links and of accounts are delivered and their tokens stored:
through an e-mail service's HTTP API (Resend, SendGrid, ...), and ``sha256(token + secret)``
(Auth.js's form, so both can share one database)."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

from .._context import Context
from .._flow import Step, send_http
from ..email import VerificationMessage, link_host, verification_message
from ..errors import DeadlineExceeded, EmailSignInError
from ..providers.email_apis import HTTPEmailProvider, Letter, api_error, sender_of


def send_through_api(
    ctx: Context,
    provider: HTTPEmailProvider,
    identifier: str,
    url: str,
    message: VerificationMessage | None = None,
) -> Step[None]:
    """Send ``message`` (default: the sign-in message for ``url``) with the service's
    documented request (``SendHTTP``); :class:`EmailSignInError` when it is not answered
    with 2xx."""
    hostname = urlsplit(url).hostname or "localhost"
    message = message or verification_message(url, link_host(url), ctx.settings.theme)
    letter = Letter(
        to=identifier,
        sender=sender_of(provider, hostname),
        subject=message.subject,
        text=message.text,
        html=message.html,
        url=url,
    )
    request = provider.api.request(provider, letter)
    try:
        response = yield from send_http(request)
    except DeadlineExceeded:
        raise
    except Exception as err:
        raise EmailSignInError(f"{provider.name} could not be reached: {err!r}") from err
    if not 200 <= response.status < 300:
        detail = api_error(response.body)
        raise EmailSignInError(
            f"{provider.name} refused the sign-in e-mail: HTTP {response.status}"
            + (f": {detail}" if detail else "")
        )


def hash_token(token: str, secret: str) -> str:
    """What is stored for a verification token: ``sha256(token + secret)`` in hex."""
    return hashlib.sha256((token + secret).encode()).hexdigest()
