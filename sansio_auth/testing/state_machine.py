"""A ready stateful test: random sequences of sign-ins, sign-outs, clock jumps and junk.

Subclass :class:`AuthStateMachine` with your configuration (your ``authorize``,
``sign_in``, ``jwt`` and ``session`` callbacks, your adapter) and let hypothesis run it:

>>> class MyAuth(AuthStateMachine):
...     def config(self, op: MemoryOP) -> AuthConfig:
...         return AuthConfig(secret=SECRET, trust_host=True, callbacks={...},
...                           providers=[Credentials(authorize=my_authorize), op.provider()])
>>> TestMyAuth = MyAuth.TestCase

Invariants it checks after every step (add your own with ``@invariant()``):

- a refused input (an answer with ``?error=`` or a 4xx/5xx status) sets no session
  cookie and writes no user, account or session through the adapter;
- a session never outlives sign-out: right after it, ``GET session`` is ``null``
  (and with database sessions the signed-out cookie no longer reads a session);
- a session that is read has a user and has not expired by the engine's clock;
- an ID token the OP spoils (bad signature, wrong ``nonce``/``aud``/``iss``,
  expired, unsigned) never signs anyone in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from ..config import AuthConfig
from ..events import CallAdapter
from ..http import Request, Response
from ..providers import Credentials
from .accounts import ANN, authorize_from
from .browser import Browser
from .op import FAULTS, Fault, MemoryOP
from .strategies import profiles, requests, users

WRITES = frozenset(
    {"create_user", "update_user", "link_account", "create_session", "create_user_and_account"}
)
"""Adapter methods that write a user, an account or a session."""
_SECRET = "state-machine-secret-0123456789abcdef0123"  # noqa: S105 - a test's


def is_session_cookie(name: str) -> bool:
    """Whether cookie ``name`` is (a chunk of) the session token."""
    return "session-token" in name


def refused(response: Response, url: str) -> bool:
    """Whether the exchange that ended in ``response`` at ``url`` was refused."""
    location = response.location or url
    query = dict(parse_qsl(urlsplit(location).query))
    return response.status >= 400 or "error" in query


class AuthStateMachine(RuleBasedStateMachine):
    """Sign in (credentials, the OP, a misbehaving OP), sign out, read and update the
    session, move the clock and send arbitrary requests, in any order, checking the
    invariants above. Override :meth:`config` (and the class attributes) for your app.
    """

    accounts: ClassVar[Sequence[Mapping[str, str]]] = (ANN,)
    """Accounts the default :meth:`config` accepts, and :meth:`credentials` draws from."""
    credentials_id: ClassVar[str | None] = "credentials"
    """Your credentials provider's id (``None``: no credentials rules)."""
    op_id: ClassVar[str | None] = "op"
    """The id of the provider you built with ``op.provider()`` (``None``: no OP rules)."""
    max_clock_step: ClassVar[int] = 40 * 86400
    """The longest jump of the clock, in seconds."""

    def __init__(self) -> None:
        super().__init__()
        self.op = MemoryOP()
        self.browser = Browser(self.config(self.op), op=self.op)
        self.signed_out_cookies: dict[str, str] | None = None

    # -- what to override ---------------------------------------------------------------------

    def config(self, op: MemoryOP) -> AuthConfig:
        """The configuration under test (``op`` is the OP the browser signs in at).

        By default: a credentials provider over :attr:`accounts` and ``op``, JWT sessions.
        """
        return AuthConfig(
            secret=_SECRET,
            trust_host=True,
            providers=[Credentials(authorize=authorize_from(self.accounts)), op.provider()],
        )

    def credentials(self) -> st.SearchStrategy[dict[str, str]]:
        """The form fields a credentials sign-in posts: a known account, a known one with
        a wrong password, or anyone (:func:`~sansio_auth.testing.strategies.users`)."""
        known = st.sampled_from(list(self.accounts))
        return st.one_of(
            known.map(lambda a: {"username": a["username"], "password": a["password"]}),
            known.map(lambda a: {"username": a["username"], "password": a["password"] + "x"}),
            users().map(lambda u: {"username": u["username"], "password": u["password"]}),
        )

    # -- the steps ---------------------------------------------------------------------------------

    def attempt(self, move: Any) -> bool:
        """Run ``move()`` (a sign-in), check the refusal invariant; whether it was refused."""
        seen, actions = len(self.browser.history), len(self.browser.performer.actions)
        response = move()
        exchange = self.browser.history[seen:]
        if not refused(response, self.browser.url):
            self.signed_out_cookies = None
            return False
        for _, answer in exchange:
            written = [c.name for c in answer.cookies if c.options.max_age != 0]
            assert not any(map(is_session_cookie, written)), f"refused, yet set {written}"
        writes = [
            a.method
            for a in self.browser.performer.actions[actions:]
            if isinstance(a, CallAdapter) and a.method in WRITES
        ]
        assert writes == [], f"a refused sign-in wrote through the adapter: {writes}"
        return True

    @precondition(lambda self: self.credentials_id is not None)
    @rule(data=st.data())
    def sign_in_with_credentials(self, data: st.DataObject) -> None:
        fields = data.draw(self.credentials(), label="credentials")
        assert self.credentials_id is not None
        self.attempt(lambda: self.browser.sign_in(self.credentials_id, **fields))

    @precondition(lambda self: self.op_id is not None)
    @rule(profile=profiles())
    def sign_in_at_the_op(self, profile: dict[str, Any]) -> None:
        self.op.users["visitor"] = profile
        assert self.op_id is not None
        self.attempt(lambda: self.browser.sign_in(self.op_id, as_user="visitor"))

    @precondition(lambda self: self.op_id is not None)
    @rule(fault=st.sampled_from(FAULTS))
    def sign_in_at_a_misbehaving_op(self, fault: Fault) -> None:
        before = self.browser.session()
        self.op.misbehave(fault)
        try:
            assert self.op_id is not None
            was_refused = self.attempt(lambda: self.browser.sign_in(self.op_id))
        finally:
            self.op.behave()
        assert was_refused, f"an ID token with fault {fault!r} signed in"
        if before is not None:
            assert self.browser.session() == before, "a refused sign-in changed the session"

    @rule()
    def sign_out(self) -> None:
        cookies = dict(self.browser.cookies())
        self.browser.sign_out()
        assert self.browser.session() is None, "signed out, yet GET session has a session"
        if any(map(is_session_cookie, cookies)):
            self.signed_out_cookies = cookies

    @precondition(
        lambda self: (
            self.signed_out_cookies is not None
            and self.browser.engine.settings.strategy == "database"
        )
    )
    @rule()
    def replay_a_signed_out_cookie(self) -> None:
        assert self.signed_out_cookies is not None
        header = "; ".join(f"{k}={v}" for k, v in self.signed_out_cookies.items())
        other = self.browser.another()
        response = other.get(f"{other.base}/session", headers={"cookie": header})
        assert response.json() is None, "a database session outlived sign-out"

    @rule(data=st.data())
    def update_the_session(self, data: st.DataObject) -> None:
        value = data.draw(st.none() | st.dictionaries(st.text(max_size=8), st.text(max_size=8)))
        self.browser.update_session(value)

    @rule(data=st.data())
    def wait(self, data: st.DataObject) -> None:
        self.browser.advance(data.draw(st.integers(0, self.max_clock_step), label="seconds"))

    @rule(data=st.data())
    def send_anything(self, data: st.DataObject) -> None:
        drawn: Request = data.draw(requests(base_path=self.browser.base), label="request")
        if "cookie" not in drawn.headers and self.browser.cookies():
            headers = {**drawn.headers, "cookie": self.browser.cookie_header()}
            drawn = Request(method=drawn.method, url=drawn.url, headers=headers, body=drawn.body)
        self.attempt(lambda: self.browser.send(drawn))

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def a_session_has_a_user_and_has_not_expired(self) -> None:
        session = self.browser.session()
        if session is None:
            return
        assert isinstance(session, dict), session
        expires = datetime.fromisoformat(session["expires"].replace("Z", "+00:00"))
        assert expires.timestamp() > self.browser.clock.now, "an expired session was read"
