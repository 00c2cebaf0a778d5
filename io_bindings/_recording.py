"""The recording format shared by :mod:`io_bindings.record` and :mod:`io_bindings.replay`.

One :class:`Exchange` per line, msgspec JSON, ``version`` first. Everything the engine
received while serving one request is plain data here: the request, the clock readings
and entropy it drew, each action (as the data that identifies it) with the event that
answered it, and the final response's status, ``Location`` and cookies.

Secrets are replaced by placeholders ``__redacted_N__`` numbered by first appearance
(:class:`Redactor`): the same value always gets the same placeholder, so a value the
engine set in one exchange (a cookie, an e-mail token) is recognisable where it comes
back in the next, and replay (which redacts what it replays with the same rules, in the
same order) compares placeholders instead of values.
"""

from __future__ import annotations

import base64
import importlib
import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

from sansio_auth import Request, Response
from sansio_auth.events import (
    Action,
    AdapterReturned,
    CallAdapter,
    CallbackReturned,
    Event,
    Failed,
    HashPassword,
    HTTPResponse,
    InvokeCallback,
    Log,
    PasswordChecked,
    PasswordHashed,
    SendHTTP,
    VerifyPassword,
)
from sansio_auth.oauth.checks import b64url, unb64url
from sansio_auth.ratelimit import COUNTER_KEY_PREFIX

VERSION = 1

SECRET_KEYS = frozenset(
    {
        "access_token",
        "oauth_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "client_assertion",
        "assertion",
        "code",
        "code_verifier",
        "password",
        "token",
        "secret",
        "sessiontoken",
        "session_token",
        "authorization",
        "cookie",
        "x-api-key",
        "x-postmark-server-token",
        "password_hash",
        "totp_secret",
        "recovery_codes",
        "message",
    }
)
"""Keys (of JSON objects, form fields, query parameters, callback and adapter data;
case-insensitive) whose values are secrets."""

PATH_SECRET_LENGTH = 16
"""How long a known secret must be to be looked for among a URL's path segments."""

SECRET_ARGS = {
    "use_verification_token": 1,
    "get_session_and_user": 0,
    "delete_session": 0,
    "set_password_hash": 1,
    "use_recovery_code": 1,
}
"""Adapter methods whose positional argument at this index is a secret (a token)."""

PLACEHOLDER = re.compile(r"__redacted_(\d+)__")
EMAIL_DOMAIN = "redacted.invalid"
"""The domain of an e-mail address's placeholder ``__redacted_N__@redacted.invalid``: still
an address, so a flow replayed with it takes the path it took with the real one."""
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")
_EMAIL_PLACEHOLDER = re.compile(rf"(__redacted_\d+__)@{re.escape(EMAIL_DOMAIN)}")
_PASSWORD_HASH = re.compile(r"^(\$argon2|argon2\$|pbkdf2_sha256\$|\$2[aby]\$|bcrypt(_sha256)?\$)")
"""A password hash in any format :mod:`sansio_auth.passwords` reads: redacted wherever it is."""
_JWT = re.compile(r"^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$")


class Step(msgspec.Struct, kw_only=True):
    """One action and the event that answered it (``None`` for a ``Log``)."""

    action: dict[str, Any]
    event: dict[str, Any] | None = None


class Exchange(msgspec.Struct, kw_only=True):
    """One request served, as recorded."""

    version: int = VERSION
    redacted: bool = True
    """Whether secrets were replaced by placeholders."""
    emails_redacted: bool = False
    """Whether e-mail addresses were replaced by placeholders too."""
    request: dict[str, Any]
    clock: list[float] = msgspec.field(default_factory=list)
    entropy: list[str] = msgspec.field(default_factory=list)
    """Base64 of each ``entropy(n)`` result, in order."""
    steps: list[Step] = msgspec.field(default_factory=list)
    response: dict[str, Any] | None = None
    """``None`` when the request was not an auth route."""


class RecordingError(ValueError):
    """A recording file that cannot be read (bad JSON, unknown version)."""


def read_exchanges(path: str) -> list[Exchange]:
    """Every exchange in the JSON-lines file at ``path``."""
    exchanges = []
    with open(path, "rb") as file:
        for number, line in enumerate(file, 1):
            if not line.strip():
                continue
            try:
                exchange = msgspec.json.decode(line, type=Exchange)
            except msgspec.DecodeError as err:
                raise RecordingError(f"{path}:{number}: {err}") from None
            if exchange.version != VERSION:
                raise RecordingError(f"{path}:{number}: unknown version {exchange.version}")
            exchanges.append(exchange)
    return exchanges


# -- plain data ---------------------------------------------------------------------------------


def _text(body: bytes) -> dict[str, str]:
    try:
        return {"text": body.decode()}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(body).decode()}


def body_bytes(data: Mapping[str, str]) -> bytes:
    """The bytes :func:`_text` encoded."""
    if "base64" in data:
        return base64.b64decode(data["base64"])
    return data.get("text", "").encode()


def _enc_hook(value: Any) -> Any:
    if isinstance(value, bytes):
        return _text(value)
    if isinstance(value, BaseException):
        return error_data(value)
    if callable(value):
        return f"<{getattr(value, '__qualname__', type(value).__name__)}>"
    return f"<{type(value).__name__}>"


def plain(value: Any) -> Any:
    """``value`` as JSON-ready data: bytes as text, datetimes tagged (``{"$datetime": iso}``,
    so that :func:`typed` gives them back), functions and opaque objects by name."""
    builtins = msgspec.to_builtins(
        value, builtin_types=(bytes, datetime), enc_hook=_enc_hook, str_keys=True
    )
    return _tagged(builtins)


def _tagged(value: Any) -> Any:
    if isinstance(value, bytes):
        return _text(value)
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, dict):
        return {k: _tagged(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_tagged(item) for item in value]
    return value


def typed(value: Any) -> Any:
    """``value`` from :func:`plain` with its datetimes back."""
    if isinstance(value, dict):
        if value.keys() == {"$datetime"}:
            return datetime.fromisoformat(value["$datetime"])
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(item) for item in value]
    return value


def request_data(request: Request) -> dict[str, Any]:
    """The recorded form of an incoming request."""
    data = {
        "method": request.method,
        "url": request.url,
        "headers": dict(request.headers),
        "body": _text(request.body),
    }
    if request.client is not None:
        data["client"] = request.client
    if request.language is not None:
        data["language"] = request.language
    return data


def request_from_data(data: Mapping[str, Any]) -> Request:
    """The :class:`~sansio_auth.Request` back from :func:`request_data`."""
    return Request(
        method=data["method"],
        url=data["url"],
        headers=dict(data["headers"]),
        body=body_bytes(data["body"]),
        client=data.get("client"),
        language=data.get("language"),
    )


def action_data(action: Action) -> dict[str, Any]:
    """What identifies ``action``: compared on replay."""
    match action:
        case SendHTTP(request=request):
            return {
                "kind": "http",
                "method": request.method,
                "url": request.url,
                "headers": [list(pair) for pair in request.headers],
                "body": _text(request.body),
            }
        case InvokeCallback(name=name, params=params):
            return {"kind": "callback", "name": name, "params": plain(params)}
        case CallAdapter(method=method, args=args):
            return {"kind": "adapter", "method": method, "args": plain(args)}
        case HashPassword(password=password, salt=salt, params=params):
            return {
                "kind": "hash_password",
                "password": password,
                "salt": _text(salt),
                "params": plain(params),
            }
        case VerifyPassword(password=password, stored=stored, params=params):
            return {
                "kind": "verify_password",
                "password": password,
                "password_hash": stored,
                "params": plain(params),
            }
        case Log(level=level, code=code):
            return {"kind": "log", "level": level, "log_code": code}
    raise TypeError(f"cannot record {action!r}")


def _type_name(value: Any) -> str | None:
    if isinstance(value, msgspec.Struct):
        cls = type(value)
        return f"{cls.__module__}:{cls.__qualname__}"
    return None


def event_data(event: Event) -> dict[str, Any]:
    """The recorded form of ``event`` (values keep their struct type's name)."""
    match event:
        case HTTPResponse(status=status, headers=headers, body=body):
            return {"kind": "http", "status": status, "headers": dict(headers), "body": _text(body)}
        case CallbackReturned(value=value) | AdapterReturned(value=value):
            kind = "returned" if isinstance(event, CallbackReturned) else "adapter_returned"
            items = value if isinstance(value, list | tuple) and value else [value]
            return {"kind": kind, "type": _type_name(items[0]), "value": plain(value)}
        case Failed(error=error):
            return {"kind": "failed", **error_data(error)}
        case PasswordHashed(hash=hashed):
            return {"kind": "password_hashed", "password_hash": hashed}
        case PasswordChecked(valid=valid, needs_rehash=needs_rehash):
            return {"kind": "password_checked", "valid": valid, "needs_rehash": needs_rehash}
    raise TypeError(f"cannot record {event!r}")


_IMPORTABLE = ("sansio_auth", "io_bindings", "builtins", "datetime")


def _importable(module: str) -> bool:
    return module.split(".", 1)[0] in _IMPORTABLE


def _resolve(name: str) -> Any:
    module, _, qualname = name.partition(":")
    if not _importable(module):
        return None
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return target


def error_data(error: BaseException) -> dict[str, Any]:
    """An exception as data: the nearest library or built-in class, message and ``code``."""
    cls = next(c for c in type(error).__mro__ if _importable(c.__module__))
    data: dict[str, Any] = {"type": f"{cls.__module__}:{cls.__qualname__}", "message": str(error)}
    if isinstance(getattr(error, "code", None), str):
        data["error_code"] = error.code  # type: ignore[attr-defined]
    return data


class RecordedError(Exception):
    """A recorded failure whose class could not be re-created."""


def error_from_data(data: Mapping[str, Any]) -> BaseException:
    """The exception :func:`error_data` described (its class, message and ``code``)."""
    cls = _resolve(data["type"])
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = RecordedError
    error: Exception = cls.__new__(cls)
    Exception.__init__(error, data["message"])
    if "error_code" in data:
        error.code = data["error_code"]  # type: ignore[attr-defined]
    return error


def event_from_data(data: Mapping[str, Any]) -> Event:
    """The :data:`~sansio_auth.events.Event` back from :func:`event_data`."""
    kind = data["kind"]
    if kind == "http":
        headers = dict(data["headers"])
        return HTTPResponse(status=data["status"], headers=headers, body=body_bytes(data["body"]))
    if kind == "failed":
        return Failed(error=error_from_data(data))
    if kind == "password_hashed":
        return PasswordHashed(hash=data["password_hash"])
    if kind == "password_checked":
        return PasswordChecked(valid=data["valid"], needs_rehash=data["needs_rehash"])
    value = typed(data["value"])
    cls = _resolve(data["type"]) if data.get("type") else None
    if isinstance(cls, type) and value is not None:
        target: Any = list[cls] if isinstance(value, list) else cls  # type: ignore[valid-type]
        value = msgspec.convert(value, target, strict=False)
    return CallbackReturned(value=value) if kind == "returned" else AdapterReturned(value=value)


def response_data(response: Response) -> dict[str, Any]:
    """What is compared of the final response: status, ``Location`` and cookies."""
    return {
        "status": response.status,
        "location": response.location,
        "cookies": [_wire(cookie.header_value()) for cookie in response.cookies],
    }


def _wire(set_cookie: str) -> list[str]:
    """A ``Set-Cookie`` value's name and value as the browser will send them back."""
    name, _, value = set_cookie.split(";", 1)[0].partition("=")
    return [name, value]


# -- redaction ----------------------------------------------------------------------------------


class Redactor:
    """Replaces secrets with placeholders numbered by first appearance.

    ``known`` maps each value seen to its placeholder; :meth:`bind` records that a
    value stands for a given placeholder (replay feeding recorded input back in).
    With ``emails``, every string that is an e-mail address is a secret too; its
    placeholder is itself an address (:data:`EMAIL_DOMAIN`).
    """

    def __init__(self, *, emails: bool = False) -> None:
        self.emails = emails
        self.known: dict[str, str] = {}
        self.values: dict[str, str] = {}
        """Placeholder → the value it stands for (the inverse of ``known``)."""
        self._next = 1

    def placeholder(self, value: str) -> str:
        """The placeholder for ``value`` (a placeholder or ``""`` stays as it is)."""
        if not value:
            return value
        email = self.is_email(value)
        key = value.lower() if email else value  # an address in any case is one address
        if key in self.known:
            return self.known[key]
        match = PLACEHOLDER.fullmatch(value) or _EMAIL_PLACEHOLDER.fullmatch(value)
        if match:
            self._number(match[0])
            return value
        placeholder = f"__redacted_{self._next}__"
        if email:
            placeholder += f"@{EMAIL_DOMAIN}"
        self.bind(key, placeholder)
        return placeholder

    def bind(self, value: str, placeholder: str) -> None:
        """Record that ``value`` stands for ``placeholder``."""
        self.known[value] = placeholder
        self.values[placeholder] = value
        self._number(placeholder)

    def _number(self, placeholder: str) -> None:
        """Number later placeholders after this one."""
        number = int(PLACEHOLDER.match(placeholder)[1])  # type: ignore[index]
        self._next = max(self._next, number + 1)

    def is_email(self, value: str) -> bool:
        """Whether ``value`` is an e-mail address to redact."""
        return self.emails and _EMAIL.fullmatch(value) is not None

    def secret(self, key: str, value: str) -> str:
        """``value`` of secret field ``key`` redacted (an ID token keeps its claims)."""
        jwt = _JWT.match(value) if key.lower() == "id_token" else None
        if jwt:
            return f"{jwt[1]}.{self._claims(jwt[2])}.{self.placeholder(jwt[3])}"
        if key.lower() == "authorization" and " " in value:
            scheme, _, credentials = value.partition(" ")
            return f"{scheme} {self.placeholder(credentials)}"
        if key.lower() == "cookie":
            return "; ".join(f"{name}={self.placeholder(v)}" for name, v in _cookie_pairs(value))
        return self.placeholder(value)

    def _claims(self, payload: str) -> str:
        """A JWT's base64url payload with the addresses in its claims redacted."""
        if not self.emails:
            return payload
        try:
            claims = json.loads(unb64url(payload))
        except ValueError:
            return payload
        encoded = json.dumps(self.tree(claims), separators=(",", ":")).encode()
        return b64url(encoded)

    def tree(self, value: Any) -> Any:
        """``value`` (plain data) with secret keys' values and URL parameters redacted."""
        if isinstance(value, dict):
            if isinstance(value.get("headers"), dict | list) and isinstance(
                value.get("body"), dict
            ):
                return self.http_message(value)  # a request or response inside callback data
            return {k: self._value(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.tree(item) for item in value]
        if isinstance(value, str):
            if _PASSWORD_HASH.match(value):  # e.g. what get_password_hash returned
                return self.placeholder(value)
            if self.is_email(value) or (self.emails and value.startswith(COUNTER_KEY_PREFIX)):
                return self.placeholder(value)  # a rate-limit counter's key: an address's HMAC
            return self.url(value)
        return value

    def _value(self, key: str, value: Any) -> Any:
        if not _is_secret(key) or value is None:
            return self.tree(value)
        if isinstance(value, str):
            return self.secret(key, value)
        if isinstance(value, list):  # recovery code hashes
            return [self.placeholder(v) if isinstance(v, str) else v for v in value]
        return self.placeholder(json.dumps(value, sort_keys=True))  # an e-mail's message

    def url(self, value: str) -> str:
        """``value`` with secret query parameters redacted when it is an http(s) URL, and
        path segments that are secrets already redacted elsewhere (a token in the path;
        :data:`PATH_SECRET_LENGTH` characters at least, so no ordinary segment matches)."""
        if not value.startswith(("http://", "https://")):
            return value
        parts = urlsplit(value)
        path = "/".join(
            self.known.get(segment, segment) if len(segment) >= PATH_SECRET_LENGTH else segment
            for segment in parts.path.split("/")
        )
        if path == parts.path and not parts.query:
            return value
        return urlunsplit(parts._replace(path=path, query=self.form(parts.query)))

    def form(self, encoded: str) -> str:
        """A form-encoded string with secret fields redacted."""
        pairs = parse_qsl(encoded, keep_blank_values=True)
        return urlencode([(k, self._field(k, v)) for k, v in pairs])

    def _field(self, key: str, value: str) -> str:
        if _is_secret(key):
            return self.secret(key, value)
        return self.placeholder(value) if self.is_email(value) else value

    def body(self, body: dict[str, str], content_type: str) -> dict[str, str]:
        """A recorded body with secrets redacted (form and JSON bodies)."""
        if "text" not in body:
            return body
        text = body["text"]
        if "x-www-form-urlencoded" in content_type:
            return {"text": self.form(text)}
        if "json" in content_type:
            try:
                data = json.loads(text)
            except ValueError:
                return body
            return {"text": json.dumps(self.tree(data), separators=(",", ":"))}
        return body

    def headers(self, headers: Any) -> Any:
        """Headers (a mapping or ``[name, value]`` pairs) with secret ones redacted."""
        if isinstance(headers, dict):
            return {k: self._header(k, v) for k, v in headers.items()}
        return [[k, self._header(k, v)] for k, v in headers]

    def _header(self, name: str, value: str) -> str:
        if name.lower() == "set-cookie":
            cookie, _, attributes = value.partition(";")
            name_, _, cookie_value = cookie.partition("=")
            return f"{name_}={self.placeholder(cookie_value)};{attributes}"
        return self.secret(name, value) if _is_secret(name) else value

    def http_message(self, data: dict[str, Any]) -> dict[str, Any]:
        """A recorded request, outbound request or HTTP response with secrets redacted."""
        headers = data["headers"]
        pairs = headers.items() if isinstance(headers, dict) else headers
        content_type = next((v for k, v in pairs if k.lower() == "content-type"), "")
        out = dict(data, headers=self.headers(headers), body=self.body(data["body"], content_type))
        if "url" in out:
            out["url"] = self.url(out["url"])
        return out

    def action(self, data: dict[str, Any]) -> dict[str, Any]:
        """A recorded action with secrets redacted."""
        if data["kind"] == "http":
            return self.http_message(data)
        secret_at = SECRET_ARGS.get(data.get("method", "")) if data["kind"] == "adapter" else None
        if secret_at is not None and isinstance(data["args"][secret_at], str):
            args = list(data["args"])
            args[secret_at] = self.placeholder(args[secret_at])
            data = dict(data, args=args)
        return self.tree(data)  # type: ignore[no-any-return]

    def event(self, data: dict[str, Any]) -> dict[str, Any]:
        """A recorded event with secrets redacted."""
        if data["kind"] == "http":
            return self.http_message(data)
        return self.tree(data)  # type: ignore[no-any-return]

    def response(self, data: dict[str, Any]) -> dict[str, Any]:
        """A recorded final response with its cookie values and ``Location`` redacted."""
        location = data["location"]
        return dict(
            data,
            location=None if location is None else self.url(location),
            cookies=[[name, self.placeholder(value)] for name, value in data["cookies"]],
        )


def _is_secret(key: str) -> bool:
    return key.lower() in SECRET_KEYS


def _cookie_pairs(header: str) -> list[tuple[str, str]]:
    pairs = []
    for part in header.split(";"):
        name, sep, value = part.strip().partition("=")
        if sep:
            pairs.append((name, value))
    return pairs


class NoRedaction(Redactor):
    """A :class:`Redactor` that keeps every value (``redact=False``)."""

    def placeholder(self, value: str) -> str:
        return value


def restore(value: Any, lookup: Callable[[str], str]) -> Any:
    """``value`` (plain data) with every placeholder replaced by ``lookup(placeholder)``."""
    if isinstance(value, dict):
        return {k: restore(v, lookup) for k, v in value.items()}
    if isinstance(value, list):
        return [restore(item, lookup) for item in value]
    if isinstance(value, str) and "__redacted_" in value:
        return PLACEHOLDER.sub(lambda m: lookup(m[0]), value)
    return value
