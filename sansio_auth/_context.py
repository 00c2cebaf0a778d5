"""Per-request state shared by the flows, and the small pure helpers they use."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import msgspec

from . import jwt
from ._flow import Step, invoke, log_warning
from .cookies import CookieSet, CookieSpec, ResponseCookies
from .errors import (
    AuthError,
    Configuration,
    CredentialsSignin,
    MissingCSRF,
    client_error_type,
    hint_of,
)
from .http import Cookie, Page, Request, Response, parse_cookie_header, parse_params, same_origin
from .i18n import Translator, choose, translator
from .oauth.cache import ProviderCache
from .pages import render
from .settings import Settings

NO_CACHE = (
    ("cache-control", "private, no-cache, no-store"),
    ("expires", "0"),
    ("pragma", "no-cache"),
)
JSON = ("content-type", "application/json")
HTML = ("content-type", "text/html; charset=utf-8")
JSON_NO_CACHE = (JSON, *NO_CACHE)
"""The headers of a JSON answer no cache may keep."""
NO_STORE = NO_CACHE[0]
NO_REFERRER = ("referrer-policy", "no-referrer")


class Reply(msgspec.Struct, kw_only=True):
    """What a flow answers before cookies and ``X-Auth-Return-Redirect`` are applied."""

    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    redirect: str | None = None
    refused: str | None = None
    """The error code of a form this answer refuses (logged once by the dispatcher)."""
    page: Page | None = None
    """The built-in page :attr:`body` shows, as data."""


def json_reply(value: Any, status: int = 200, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    """A JSON reply."""
    return Reply(status=status, headers=(JSON, *headers), body=msgspec.json.encode(value))


def add_query(url: str, params: Mapping[str, str]) -> str:
    """``url`` with ``params`` appended (``?`` or ``&`` as needed)."""
    if not params:
        return url
    return url + ("&" if "?" in url else "?") + urlencode(params)


class Context:
    """One request: parsed inputs, resolved origin and cookies, and cookies to send."""

    __slots__ = (
        "_callback_url",
        "_form",
        "_translator",
        "action",
        "answer_headers",
        "cache",
        "cookie_specs",
        "cookies",
        "csrf_checked",
        "entropy",
        "json_redirects",
        "method",
        "now",
        "origin",
        "out_cookies",
        "provider_id",
        "query",
        "request",
        "secure",
        "session_user_id",
        "settings",
        "token_states",
    )

    def __init__(
        self,
        settings: Settings,
        request: Request,
        *,
        cache: ProviderCache,
        now: float,
        entropy: Callable[[int], bytes],
        origin: str,
        action: str,
        provider_id: str | None,
        query: dict[str, str],
        form: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings
        self.request = request
        self.cache = cache
        self.now = now
        self.entropy = entropy
        self.origin = origin
        self.action = action
        self.provider_id = provider_id
        self.query = query
        self.method = "POST" if form is not None else request.method.upper()
        secure = settings.secure_cookies
        self.secure = origin.startswith("https://") if secure is None else secure
        self.cookie_specs: CookieSet = settings.cookies_for(self.secure)
        self.cookies = parse_cookie_header(request.header("cookie"))
        self.out_cookies = ResponseCookies()
        self._form = form
        """The POST body, parsed when first read; given for a server-side action."""
        self.csrf_checked = False
        """Whether the engine already decided this request's CSRF (a server-side action)."""
        self._callback_url: str | None = None
        self.token_states: dict[str, dict[str, Any]] = {}
        """The provider token states a session read found (refreshed as needed), by provider."""
        self.session_user_id: str | None = None
        """The id of the user whose live session a session read found (JWT: the ``sub``)."""
        self.answer_headers: tuple[tuple[str, str], ...] = ()
        """Headers every answer to this request carries, whatever its outcome (set by the
        dispatcher from the route's row)."""
        self._translator: Translator | None = None
        self.json_redirects = False
        """Whether a script (:func:`wants_json`) gets ``{"url"}`` where a browser would be
        redirected (the account routes' rule, set by the dispatcher); otherwise only
        ``X-Auth-Return-Redirect`` asks for it, as with Auth.js."""

    # -- inputs -----------------------------------------------------------------------------

    @property
    def form(self) -> dict[str, Any]:
        """The POST body (form-urlencoded or JSON object); empty for other requests."""
        if self._form is None:
            self._form = self._parse_body()
        return self._form

    def _parse_body(self) -> dict[str, Any]:
        if self.method != "POST" or not self.request.body:
            return {}
        content_type = (self.request.header("content-type") or "").lower()
        if "application/x-www-form-urlencoded" in content_type:
            try:
                text = self.request.body.decode()
            except UnicodeDecodeError as err:
                raise BadRequest("the form body is not UTF-8") from err
            return parse_params(text)
        if "application/json" in content_type:
            try:
                value = msgspec.json.decode(self.request.body)
            except (msgspec.DecodeError, UnicodeDecodeError) as err:
                raise BadRequest("the JSON body is invalid") from err
            if not isinstance(value, dict):
                raise BadRequest("the JSON body is not an object")
            return value
        return {}

    def param(self, name: str) -> str | None:
        """A request parameter: from the POST body first, then the query."""
        value = self.form.get(name)
        if isinstance(value, str):
            return value
        return self.query.get(name)

    # -- URLs --------------------------------------------------------------------------------

    def url(self, action: str, provider_id: str | None = None) -> str:
        """The absolute URL of an auth route."""
        tail = f"/{provider_id}" if provider_id else ""
        return f"{self.origin}{self.settings.base_path}/{action}{tail}"

    def page_url(self, page: str | None, action: str) -> str:
        """A user page (``pages.*``) or the built-in page of ``action``, absolute."""
        if page is None:
            return self.url(action)
        return page if "://" in page else self.origin + page

    # -- pages -------------------------------------------------------------------------------

    @property
    def translator(self) -> Translator:
        """The messages in this request's language: the framework's (``request.language``),
        else the best offered one ``Accept-Language`` asks for, else the first offered."""
        if self._translator is None:
            settings = self.settings
            language = choose(
                settings.languages,
                framework=self.request.language,
                accept_language=self.request.header("accept-language"),
            )
            self._translator = translator(language, settings.translations)
        return self._translator

    def page_reply(self, name: str, context: dict[str, Any], status: int = 200) -> Reply:
        """The built-in page ``name`` drawn from ``context``, in this request's language and
        the theme; the reply carries the page as data too (:class:`~sansio_auth.http.Page`)."""
        page = Page(name, context)
        language = self.translator.language
        headers = [HTML, ("content-language", language)]
        if self.request.language is None and len(self.settings.languages) > 1:
            headers.append(("vary", "Accept-Language"))
        html = render(page, self.settings.theme, self.translator)
        return Reply(status=status, headers=tuple(headers), body=html.encode(), page=page)

    # -- randomness --------------------------------------------------------------------------

    def random_hex(self, nbytes: int = 32) -> str:
        """Random bytes from the injected entropy, as lower-case hex."""
        return self.entropy(nbytes).hex()

    def random_uuid(self) -> str:
        """A random UUID v4 from the injected entropy."""
        return jwt.uuid_v4(self.entropy(16))

    # -- CSRF (double-submit cookie: "<token>|sha256(token + secret)") -----------------------
    #
    # Made with the first secret; a cookie made with any of the secrets is taken (and made
    # again with the first when a token is handed out), and so is one made with all of them
    # joined by commas (what Auth.js makes from a list). So a secret roll across a fleet (new
    # secret added, then first, then the old one removed, node by node) never breaks a form
    # whose token came from another node.

    def csrf_token(self) -> str:
        """The CSRF token from a valid cookie, or a new one with its cookie."""
        specs, cookies = self.cookie_specs, self.cookies
        token, cookie = csrf_token_and_cookie(self.settings, specs, cookies, self.now, self.entropy)
        if cookie is not None:
            self.out_cookies.set(cookie)
        return token

    def check_csrf(self) -> None:
        """Raise :class:`MissingCSRF` unless the body's ``csrfToken`` matches the cookie."""
        if self.settings.skip_csrf or self.csrf_checked:
            return
        expected, _ = _cookie_csrf_token(self.settings, self.cookie_specs, self.cookies)
        given = self.form.get("csrfToken")
        if (
            expected is None
            or not isinstance(given, str)
            or not hmac.compare_digest(given.encode(), expected.encode())
        ):
            raise MissingCSRF("CSRF token was missing during an action " + self.action)

    # -- callback URL ------------------------------------------------------------------------

    def callback_url(self) -> Step[str]:
        """Where to go after the action: request ``callbackUrl``, else ``next`` (where Django's
        ``login_required`` and others put the page asked for), else the cookie, via ``redirect``.

        The result is remembered in the callback-url cookie when it changed.
        """
        if self._callback_url is not None:
            return self._callback_url
        spec = self.cookie_specs.callback_url
        cookie = self.cookies.get(spec.name)
        given = self.param("callbackUrl") or self.param("next")
        resolved = self.origin
        for candidate in (given, cookie):
            if not candidate:
                continue
            if _http_or_relative(candidate, self.origin):
                resolved = yield from self.redirect(candidate)
                break
            yield from log_warning(
                "invalid-callback-url", "ignored a callback URL that is not http(s)"
            )
            if candidate is cookie:
                self.out_cookies.delete(spec)
        if resolved != cookie:
            self.out_cookies.set(spec.make(resolved, self.now))
        self._callback_url = resolved
        return resolved

    def redirect(self, url: str) -> Step[str]:
        """Run the ``redirect`` callback (default: stay on this origin)."""
        callback = self.settings.callbacks.redirect
        if callback is None:
            return default_redirect(url, self.origin)
        result = yield from invoke("redirect", callback, url=url, base_url=self.origin)
        if not isinstance(result, str):
            raise Configuration("the `redirect` callback must return a string")
        return result

    # -- the answer -------------------------------------------------------------------------

    def respond(self, reply: Reply, *, failed: bool = False) -> Response:
        """The response of ``reply`` with this request's cookies (only deletions after a
        failure) and the headers that go with them; a redirect answers ``200 {"url": ...}``
        when the request has an ``X-Auth-Return-Redirect`` header or, on a route with
        :attr:`json_redirects`, asks for JSON.

        The route's :attr:`answer_headers` replace those of the same name (``Referrer-Policy``
        where the URL carries a code or token, ``Cache-Control: no-store`` where the page
        shows a secret). A response that sets or deletes the session cookie is never stored
        by a cache (``Cache-Control: no-store``, redirects included)."""
        cookies = self.out_cookies.deletions_only() if failed else tuple(self.out_cookies)
        headers = reply.headers
        if self.answer_headers:
            names = {name for name, _ in self.answer_headers}
            headers = (*(h for h in headers if h[0].lower() not in names), *self.answer_headers)
        session = self.cookie_specs.session_token.name
        if any(_is_chunk_of(c.name, session) for c in cookies) and not _no_store(headers):
            headers = (*(h for h in headers if h[0].lower() != "cache-control"), NO_STORE)
        if reply.redirect is None:
            return Response(
                status=reply.status,
                headers=headers,
                cookies=cookies,
                body=reply.body,
                page=reply.page,
            )
        headers = (*headers, ("location", reply.redirect))
        if wants_json(self) if self.json_redirects else _return_redirect(self.request):
            body = json_reply({"url": reply.redirect})
            return Response(
                status=200, headers=(*body.headers, *headers), cookies=cookies, body=body.body
            )
        return Response(status=302, headers=headers, cookies=cookies)

    def error_reply(self, error: Exception) -> Reply:
        """Where an error sends the browser: the sign-in page or the error page, with
        ``?error=`` (the one place errors become pages); ``POST session`` answers 400."""
        if self.method == "POST" and self.action == "session":
            return json_reply(None, status=400)
        params = {"error": client_error_type(error)}
        if isinstance(error, CredentialsSignin):
            params["code"] = error.code
        if self.settings.debug and (hint := hint_of(error)):
            params["hint"] = hint  # a row of the fixed HINTS table: the page shows its texts
        pages = self.settings.pages
        if isinstance(error, AuthError) and error.kind == "signIn":
            url = self.page_url(pages.sign_in, "signin")
        else:
            url = self.page_url(pages.error, "error")
        return Reply(redirect=add_query(url, params))

    # -- sealed cookies (the engine's own: two-factor, devices) --------------------------------

    def seal(self, spec: CookieSpec, claims: Mapping[str, Any], max_age: int) -> str:
        """``claims`` encrypted for the cookie ``spec`` (its name is the key's salt), valid for
        ``max_age`` seconds."""
        return jwt.encode(
            claims,
            self.settings.secrets,
            spec.name,
            now=self.now,
            entropy=self.entropy,
            max_age=max_age,
        )

    def unseal(self, spec: CookieSpec, value: str) -> dict[str, Any]:
        """The claims :meth:`seal` made for ``spec``; :class:`jwt.InvalidToken` when
        ``value`` is not such a cookie (altered, expired, another secret)."""
        return jwt.decode(value, self.settings.secrets, spec.name, now=self.now)

    # -- session token -----------------------------------------------------------------------

    def encode_token(self, token: Mapping[str, Any]) -> Step[str]:
        """Encrypt the session token (``jwt.encode`` override or the built-in JWE)."""
        settings = self.settings
        salt = self.cookie_specs.session_token.name
        override = settings.jwt.encode
        if override is None:
            return jwt.encode(
                token,
                settings.secrets,
                salt,
                now=self.now,
                entropy=self.entropy,
                max_age=settings.jwt_max_age,
            )
        value = yield from invoke(
            "encode",
            override,
            token=token,
            secret=_secret_param(settings),
            salt=salt,
            max_age=settings.jwt_max_age,
        )
        if not isinstance(value, str):
            raise Configuration("`jwt.encode` must return a string")
        return value

    def decode_token(self, value: str) -> Step[dict[str, Any] | None]:
        """Decrypt a session token; ``None`` (or :class:`jwt.InvalidToken`) when it is not valid."""
        settings = self.settings
        salt = self.cookie_specs.session_token.name
        override = settings.jwt.decode
        if override is None:
            return jwt.decode(value, settings.secrets, salt, now=self.now)
        token = yield from invoke(
            "decode", override, token=value, secret=_secret_param(settings), salt=salt
        )
        if token is not None and not isinstance(token, dict):
            raise Configuration("`jwt.decode` must return a dict or None")
        return token


def wants_json(ctx: Context) -> bool:
    """The client asked for JSON: a JSON body, ``X-Auth-Return-Redirect`` (Auth.js's client),
    or an ``Accept`` that names JSON and not HTML."""
    request = ctx.request
    if _return_redirect(request):
        return True
    if "application/json" in (request.header("content-type") or "").lower():
        return True
    accept = (request.header("accept") or "").lower()
    return "application/json" in accept and "text/html" not in accept


def _return_redirect(request: Request) -> bool:
    return request.header("x-auth-return-redirect") is not None


def _is_chunk_of(name: str, session: str) -> bool:
    """Whether cookie ``name`` is the session cookie ``session`` or one of its chunks."""
    return name == session or (
        name.startswith(session + ".") and name[len(session) + 1 :].isdigit()
    )


def _no_store(headers: tuple[tuple[str, str], ...]) -> bool:
    return any(k.lower() == "cache-control" and "no-store" in v.lower() for k, v in headers)


def _secret_param(settings: Settings) -> str | list[str]:
    secrets = settings.secrets
    return secrets[0] if len(secrets) == 1 else list(secrets)


class BadRequest(ValueError):
    """The request cannot be parsed; answered with 400 ``"Bad request."``. ``hint`` names
    its row of :data:`~sansio_auth.errors.HINTS`, if one fits."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def default_redirect(url: str, base_url: str) -> str:
    """Auth.js's default ``redirect``: relative paths and same-origin URLs, else ``base_url``."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return base_url
    if url.startswith("/"):
        return base_url + url
    if same_origin(url, base_url):
        return url
    return base_url


def _http_or_relative(url: str, origin: str) -> bool:
    if url.startswith("/"):
        return True
    scheme = url.partition(":")[0].lower()
    return scheme in ("http", "https") and "://" in url


def origin_of(settings: Settings, request: Request, origin: str) -> str:
    """The public origin: ``AUTH_URL``'s, or (trusted host) the request URL's ``origin``
    or its proxy's."""
    if settings.url_origin is not None:
        return settings.url_origin
    host = request.headers.get("x-forwarded-host")
    proto = request.headers.get("x-forwarded-proto")
    if host or proto:
        scheme, _, netloc = origin.partition("://")
        scheme = (proto or scheme).split(",")[0].strip().lower()
        netloc = (host or netloc).split(",")[0].strip().lower()
        origin = f"{scheme}://{netloc}"
    return origin


def request_cookies(settings: Settings, request: Request, origin: str) -> CookieSet:
    """The cookies of ``request`` (whose URL's origin is ``origin``): the secure set when its
    public origin is ``https``, unless ``use_secure_cookies`` decides."""
    secure = settings.secure_cookies
    if secure is None:
        secure = origin_of(settings, request, origin).startswith("https://")
    return settings.cookies_for(secure)


def csrf_token_and_cookie(
    settings: Settings,
    specs: CookieSet,
    cookies: Mapping[str, str],
    now: float,
    entropy: Callable[[int], bytes],
) -> tuple[str, Cookie | None]:
    """The CSRF token of a valid cookie in ``cookies``, or a new one (from ``entropy``), and
    the cookie to set: none when the browser's is valid and made with the first secret."""
    token, current = _cookie_csrf_token(settings, specs, cookies)
    if token is None:
        token = entropy(32).hex()
    if current:
        return token, None
    digest = _csrf_hash(token, settings.secrets[0])
    return token, specs.csrf_token.make(f"{token}|{digest}", now)


def _cookie_csrf_token(
    settings: Settings, specs: CookieSet, cookies: Mapping[str, str]
) -> tuple[str | None, bool]:
    """The token of a valid CSRF cookie (else ``None``), and whether the cookie is made with
    the first secret."""
    raw = cookies.get(specs.csrf_token.name)
    if not raw:
        return None, False
    token, _, digest = raw.partition("|")
    if not token:
        return None, False
    secrets = settings.secrets
    given = digest.encode()  # as bytes: compare_digest refuses a str that is not ASCII
    if hmac.compare_digest(given, _csrf_hash(token, secrets[0]).encode()):
        return token, True
    others = (*secrets[1:], ",".join(secrets)) if len(secrets) > 1 else ()
    if any(hmac.compare_digest(given, _csrf_hash(token, s).encode()) for s in others):
        return token, False
    return None, False


def _csrf_hash(token: str, secret: str) -> str:
    return hashlib.sha256((token + secret).encode()).hexdigest()
