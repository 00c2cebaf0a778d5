"""E-mail providers that send the sign-in link through a service's HTTP API.

Each is Auth.js's provider of the same id — ``resend``, ``sendgrid``, ``postmark``,
``mailgun``, ``forwardemail``, ``loops`` — and sends the default message
(:func:`sansio_auth.email.verification_message`) with the service's documented request.
The request is built here, purely, and sent by the engine as a ``SendHTTP`` action: the
testing kit sees it, a recording replays it. The key comes from the configuration's
``api_key``, else ``AUTH_<ID>_KEY`` (``AUTH_RESEND_KEY``). A service answering anything
but 2xx (or not answering) is an :class:`~sansio_auth.errors.EmailSignInError`: the
visitor is sent back to the sign-in page (``error=EmailSignin``) and the unsent link's
token is deleted. A ``send_verification_request`` given in the configuration replaces the
API call, as in Auth.js.

Each service is a row (:class:`EmailAPI`) of :data:`EMAIL_APIS`: its request builder and
what the docs say about it.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parseaddr
from typing import Any, ClassVar, Literal, Self

import msgspec

from ..errors import Configuration
from ..events import OutboundRequest
from .email import EmailProvider

JSON = ("content-type", "application/json")


@dataclass(frozen=True, kw_only=True, slots=True)
class Letter:
    """The sign-in message to send: ``sender`` and ``to`` addresses, subject, bodies, link."""

    to: str
    sender: str
    subject: str
    text: str
    html: str
    url: str


@dataclass(frozen=True, kw_only=True, slots=True)
class EmailAPI:
    """One e-mail service: its id and name (Auth.js's), factory, API and documentation."""

    id: str
    name: str
    factory: str
    base_url: str
    """The API's origin; ``api_url`` overrides it (another region, a test server)."""
    request: Callable[[Any, Letter], OutboundRequest]
    """``(provider, letter) -> request``: the documented request sending ``letter``."""
    setup: str
    """Where the API key is created (docs)."""
    notes: str = ""
    differs: str = ""


@dataclass(frozen=True, kw_only=True)
class HTTPEmailProvider(EmailProvider):
    """An e-mail provider sending through its service's HTTP API (see the module docstring)."""

    api: ClassVar[EmailAPI]
    api_key: str | None = field(default=None, repr=False)
    """The API key; default ``AUTH_<ID>_KEY``."""
    from_: str | None = None
    """The sender (``"Shop <no-reply@shop.example>"``), Auth.js's ``from``; default
    ``no-reply@<the site's host>``."""
    api_url: str | None = None
    """The API's base URL; default the service's (:attr:`EmailAPI.base_url`)."""

    def __init_subclass__(cls, *, service: str = "", **kwargs: Any) -> None:
        """``class ResendProvider(HTTPEmailProvider, service="resend")``: the row's record."""
        super().__init_subclass__(**kwargs)
        if service:
            cls.api = EMAIL_APIS[service]
            cls.defaults = {"id": cls.api.id, "name": cls.api.name}

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> Self:
        """A record from its defaults and ``options`` (Auth.js's ``from`` is ``from_``)."""
        if "from" in options:
            renamed = {k: v for k, v in options.items() if k != "from"}
            options = {"from_": options["from"], **renamed}
        return super().from_mapping(options)

    @property
    def base_url(self) -> str:
        """Where requests go: ``api_url``, else the service's API."""
        return (self.api_url or self.api.base_url).rstrip("/")

    def check_sender(self) -> None:
        """A key (``AUTH_<ID>_KEY``) unless a ``send_verification_request`` replaces the API."""
        if self.send_verification_request is not None:
            super().check_sender()
            return
        if not self.api_key:
            raise Configuration(
                f"the {self.name} provider {self.id!r} needs an `api_key` (or {self.env_prefix}KEY)"
            )
        self.check_service()

    def check_service(self) -> None:
        """Service-specific start-up checks (none by default)."""


def _bearer(key: str) -> tuple[str, str]:
    return ("authorization", f"Bearer {key}")


def _basic(user: str, password: str) -> tuple[str, str]:
    return ("authorization", "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())


def _post_json(url: str, body: Any, *headers: tuple[str, str]) -> OutboundRequest:
    return OutboundRequest(
        method="POST", url=url, headers=(*headers, JSON), body=msgspec.json.encode(body)
    )


def _key(provider: Any) -> str:
    return str(provider.api_key)


def resend_request(provider: Any, letter: Letter) -> OutboundRequest:
    """``POST /emails`` with a bearer key: from, to, subject, html, text."""
    body = {
        "from": letter.sender,
        "to": letter.to,
        "subject": letter.subject,
        "html": letter.html,
        "text": letter.text,
    }
    return _post_json(f"{provider.base_url}/emails", body, _bearer(_key(provider)))


def sendgrid_request(provider: Any, letter: Letter) -> OutboundRequest:
    """``POST /v3/mail/send`` with a bearer key; the sender as ``{email, name}``."""
    name, address = parseaddr(letter.sender)
    sender = {"email": address, **({"name": name} if name else {})}
    body = {
        "personalizations": [{"to": [{"email": letter.to}]}],
        "from": sender,
        "subject": letter.subject,
        "content": [
            {"type": "text/plain", "value": letter.text},
            {"type": "text/html", "value": letter.html},
        ],
    }
    return _post_json(f"{provider.base_url}/v3/mail/send", body, _bearer(_key(provider)))


def postmark_request(provider: Any, letter: Letter) -> OutboundRequest:
    """``POST /email`` with the server token, on the transactional ``outbound`` stream."""
    body = {
        "From": letter.sender,
        "To": letter.to,
        "Subject": letter.subject,
        "TextBody": letter.text,
        "HtmlBody": letter.html,
        "MessageStream": "outbound",
    }
    return _post_json(
        f"{provider.base_url}/email",
        body,
        ("accept", "application/json"),
        ("x-postmark-server-token", _key(provider)),
    )


def mailgun_request(provider: Any, letter: Letter) -> OutboundRequest:
    """``POST /v3/<sender's domain>/messages``, ``api:<key>`` Basic auth, multipart form."""
    domain = parseaddr(letter.sender)[1].rpartition("@")[2]
    content_type, body = multipart_form(
        {
            "from": letter.sender,
            "to": letter.to,
            "subject": letter.subject,
            "html": letter.html,
            "text": letter.text,
        }
    )
    return OutboundRequest(
        method="POST",
        url=f"{provider.base_url}/v3/{domain}/messages",
        headers=(_basic("api", _key(provider)), ("content-type", content_type)),
        body=body,
    )


def forwardemail_request(provider: Any, letter: Letter) -> OutboundRequest:
    """``POST /v1/emails``, the key as the Basic auth user (empty password)."""
    body = {
        "from": letter.sender,
        "to": letter.to,
        "subject": letter.subject,
        "html": letter.html,
        "text": letter.text,
    }
    return _post_json(f"{provider.base_url}/v1/emails", body, _basic(_key(provider), ""))


def loops_request(provider: Any, letter: Letter) -> OutboundRequest:
    """``POST /api/v1/transactional``: the Loops template ``transactional_id`` gets ``url``."""
    body = {
        "transactionalId": provider.transactional_id,
        "email": letter.to,
        "dataVariables": {"url": letter.url},
    }
    return _post_json(f"{provider.base_url}/api/v1/transactional", body, _bearer(_key(provider)))


def multipart_form(fields: Mapping[str, str]) -> tuple[str, bytes]:
    """``multipart/form-data`` (RFC 7578) of text ``fields``: the content type and the body.

    The boundary is derived from the content (the engine draws no randomness here) and
    checked not to occur in it.
    """
    digest = hashlib.sha256("\0".join(f"{k}={v}" for k, v in fields.items()).encode())
    boundary = f"sansio-auth-{digest.hexdigest()[:32]}"
    if any(boundary in value for value in fields.values()):  # pragma: no cover - 2**-128
        raise ValueError("the multipart boundary occurs in the content")
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n'
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{value}\r\n"
        for name, value in fields.items()
    ]
    body = "".join(parts) + f"--{boundary}--\r\n"
    return f"multipart/form-data; boundary={boundary}", body.encode()


EMAIL_APIS: Mapping[str, EmailAPI] = {
    api.id: api
    for api in (
        EmailAPI(
            id="forwardemail",
            name="Forward Email",
            factory="ForwardEmail",
            base_url="https://api.forwardemail.net",
            request=forwardemail_request,
            setup="https://forwardemail.net/my-account/security",
        ),
        EmailAPI(
            id="loops",
            name="Loops",
            factory="Loops",
            base_url="https://app.loops.so",
            request=loops_request,
            setup="https://app.loops.so/settings?page=api",
            notes="Loops sends its own transactional template (`transactional_id`, required); "
            "the link is its `url` data variable.",
        ),
        EmailAPI(
            id="mailgun",
            name="Mailgun",
            factory="Mailgun",
            base_url="https://api.mailgun.net",
            request=mailgun_request,
            setup="https://app.mailgun.com/settings/api_security/api_keys",
            notes='`region="EU"` sends through `api.eu.mailgun.net`. The domain in the URL is '
            "the sender's.",
            differs="The sender is `from_` as given (Auth.js wraps it in the provider's "
            "name, and takes the domain from a display-name address wrongly); the form is "
            "`multipart/form-data` as Mailgun documents.",
        ),
        EmailAPI(
            id="postmark",
            name="Postmark",
            factory="Postmark",
            base_url="https://api.postmarkapp.com",
            request=postmark_request,
            setup="https://account.postmarkapp.com/api_tokens",
            notes="Sent on the transactional `outbound` message stream with the server token.",
        ),
        EmailAPI(
            id="resend",
            name="Resend",
            factory="Resend",
            base_url="https://api.resend.com",
            request=resend_request,
            setup="https://resend.com/api-keys",
        ),
        EmailAPI(
            id="sendgrid",
            name="SendGrid",
            factory="SendGrid",
            base_url="https://api.sendgrid.com",
            request=sendgrid_request,
            setup="https://sendgrid.com/api-keys",
            notes='EU regional subusers: `api_url="https://api.eu.sendgrid.com"`.',
            differs="A sender with a display name is sent as SendGrid's `{email, name}` "
            "(Auth.js puts the whole `Name <address>` in `email`, which SendGrid refuses).",
        ),
    )
}
"""Every e-mail HTTP API service, by provider id."""

COMMON_DIFFERENCE = (
    "The sender defaults to `no-reply@<your site's host>` (Auth.js: "
    "`no-reply@authjs.dev`, which no account may send from); a refused request sends "
    "the visitor back to the sign-in page with `EmailSignin` and deletes the unsent "
    "link's token (Auth.js: the error page)."
)
"""Where every e-mail API provider differs from Auth.js's (docs)."""


class ResendProvider(HTTPEmailProvider, service="resend"):
    """The Resend provider record (see :func:`Resend`)."""


class SendGridProvider(HTTPEmailProvider, service="sendgrid"):
    """The SendGrid provider record (see :func:`SendGrid`)."""


class PostmarkProvider(HTTPEmailProvider, service="postmark"):
    """The Postmark provider record (see :func:`Postmark`)."""


class ForwardEmailProvider(HTTPEmailProvider, service="forwardemail"):
    """The Forward Email provider record (see :func:`ForwardEmail`)."""


MAILGUN_REGIONS = {"US": "https://api.mailgun.net", "EU": "https://api.eu.mailgun.net"}


@dataclass(frozen=True, kw_only=True)
class MailgunProvider(HTTPEmailProvider, service="mailgun"):
    """The Mailgun provider record (see :func:`Mailgun`)."""

    region: Literal["US", "EU"] = "US"
    """Your Mailgun domain's region."""

    @property
    def base_url(self) -> str:
        """``api_url``, else the region's API."""
        return (self.api_url or MAILGUN_REGIONS.get(self.region, "")).rstrip("/")

    def check_service(self) -> None:
        if self.region not in MAILGUN_REGIONS:
            raise Configuration(
                f"the Mailgun provider: `region` must be 'US' or 'EU', not {self.region!r}"
            )


@dataclass(frozen=True, kw_only=True)
class LoopsProvider(HTTPEmailProvider, service="loops"):
    """The Loops provider record (see :func:`Loops`)."""

    transactional_id: str | None = field(default=None)
    """The id of your Loops transactional e-mail (it has a ``url`` data variable)."""

    def check_service(self) -> None:
        if not self.transactional_id:
            raise Configuration("the Loops provider needs the `transactional_id` of your template")


def Resend(**options: Any) -> ResendProvider:  # noqa: N802 - Auth.js's name
    """Sign-in links sent with Resend; ``AUTH_RESEND_KEY`` is the API key."""
    return ResendProvider.from_mapping(options)


def SendGrid(**options: Any) -> SendGridProvider:  # noqa: N802 - Auth.js's name
    """Sign-in links sent with SendGrid; ``AUTH_SENDGRID_KEY`` is the API key."""
    return SendGridProvider.from_mapping(options)


def Postmark(**options: Any) -> PostmarkProvider:  # noqa: N802 - Auth.js's name
    """Sign-in links sent with Postmark; ``AUTH_POSTMARK_KEY`` is the server token."""
    return PostmarkProvider.from_mapping(options)


def Mailgun(**options: Any) -> MailgunProvider:  # noqa: N802 - Auth.js's name
    """Sign-in links sent with Mailgun (``region="EU"`` for EU domains); ``AUTH_MAILGUN_KEY``."""
    return MailgunProvider.from_mapping(options)


def ForwardEmail(**options: Any) -> ForwardEmailProvider:  # noqa: N802 - Auth.js's name
    """Sign-in links sent with Forward Email; ``AUTH_FORWARDEMAIL_KEY`` is the API token."""
    return ForwardEmailProvider.from_mapping(options)


def Loops(**options: Any) -> LoopsProvider:  # noqa: N802 - Auth.js's name
    """Sign-in links sent with a Loops transactional e-mail (``transactional_id``);
    ``AUTH_LOOPS_KEY`` is the API key."""
    return LoopsProvider.from_mapping(options)


EMAIL_API_FACTORIES: Mapping[str, Callable[..., HTTPEmailProvider]] = {
    "forwardemail": ForwardEmail,
    "loops": Loops,
    "mailgun": Mailgun,
    "postmark": Postmark,
    "resend": Resend,
    "sendgrid": SendGrid,
}
"""Every e-mail API provider factory, by provider id."""


def api_error(body: bytes) -> str:
    """What an e-mail API's error answer says, briefly (its ``message``, ``Message``,
    ``errors[0].message`` or ``error``, else the text), for the log."""
    try:
        value: Any = msgspec.json.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError):
        value = body.decode("utf-8", "replace")
    if isinstance(value, dict):
        errors = value.get("errors")
        first = errors[0] if isinstance(errors, list) and errors else None
        candidates = (
            value.get("message"),
            value.get("Message"),
            first.get("message") if isinstance(first, dict) else None,
            value.get("error"),
        )
        value = next((c for c in candidates if isinstance(c, str) and c), "")
    text = " ".join(str(value).split())
    return text[:200]


def sender_of(provider: HTTPEmailProvider, hostname: str) -> str:
    """The ``From`` of a sign-in message: ``from_``, else ``no-reply@<hostname>``."""
    return provider.from_ or f"no-reply@{hostname}"
