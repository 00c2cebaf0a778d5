"""The database adapter contract: Auth.js's adapter interface in snake_case.

The engine never calls an adapter itself: each call is a
:class:`~sansio_auth.events.CallAdapter` action (``method`` and positional
``args``) that the binding performs, awaiting the result when the method is
``async`` (sync methods work too). Ready adapters live in :mod:`io_bindings.db`.

Records are plain dicts with snake_case keys (the :class:`~typing.TypedDict`\\ s
below). Datetimes are timezone-aware and UTC. Keys an adapter does not know
are extra data: the memory, SQLite and Redis adapters keep them, the
PostgreSQL adapter keeps those that name a column of its table (Auth.js's
``@auth/pg-adapter`` behaviour, so the tables can be extended as upstream
documents).

Every method is atomic on the adapters of :mod:`io_bindings.db`: it either
happens completely or not at all, even when two requests race (e.g. two uses of
one verification token: exactly one gets it). Methods that write a unique key
twice raise :class:`AdapterConflict`; methods that refer to a user who does not
exist raise :class:`LookupError`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, NotRequired, Protocol, Required, TypedDict, runtime_checkable

AccountType = Literal["oauth", "oidc", "email", "webauthn"]
"""The kind of sign-in an account records (Auth.js's ``account.type``)."""


class AdapterUser(TypedDict):
    """A user. ``id`` is chosen by the adapter (it may keep the one it is given)."""

    id: str
    email: str | None
    email_verified: datetime | None
    name: NotRequired[str | None]
    image: NotRequired[str | None]


class UserUpdate(TypedDict, total=False):
    """The argument of :meth:`Adapter.update_user`: ``id`` and the keys to change."""

    id: Required[str]
    email: str | None
    email_verified: datetime | None
    name: str | None
    image: str | None


class AdapterAccount(TypedDict):
    """An account of a provider linked to a user (OAuth tokens in snake_case, as on the wire)."""

    user_id: str
    type: AccountType
    provider: str
    provider_account_id: str
    access_token: NotRequired[str | None]
    token_type: NotRequired[str | None]
    id_token: NotRequired[str | None]
    refresh_token: NotRequired[str | None]
    scope: NotRequired[str | None]
    expires_at: NotRequired[int | None]
    """Seconds since the epoch."""
    session_state: NotRequired[str | None]


class AdapterSession(TypedDict):
    """A database session: the cookie holds ``session_token``.

    The keys after ``expires`` are not in Auth.js: the user's list of sessions shows them
    (sessions stored without them are listed with ``None``)."""

    session_token: str
    user_id: str
    expires: datetime
    created_at: NotRequired[datetime | None]
    """When the sign-in that started the session happened (its freshness is counted from it)."""
    last_seen_at: NotRequired[datetime | None]
    """When the session was last used (moved when its expiry is, once per ``update_age``)."""
    user_agent: NotRequired[str | None]
    ip_address: NotRequired[str | None]
    """Only with ``session={"track_ip_address": True}``."""
    sid: NotRequired[str | None]
    """The provider session it belongs to, as back-channel logout names it
    (``op:<provider id>:<sid>``); absent when the sign-in had none. Not in Auth.js."""


class SessionUpdate(TypedDict, total=False):
    """The argument of :meth:`Adapter.update_session`: ``session_token`` and the keys to change."""

    session_token: Required[str]
    user_id: str
    expires: datetime
    last_seen_at: datetime


class SessionRecord(TypedDict):
    """What the store keeps of a JWT session (with ``session.revocation``), for the user's
    list of sessions: the session itself is the cookie. Not in Auth.js."""

    sid: str
    """The token's ``sid`` claim (its revocation key is ``sid:<sid>``)."""
    user_id: str
    """The token's ``sub`` (the user need not be stored: a credentials sign-in)."""
    expires: datetime
    created_at: datetime
    """When the sign-in happened (the token's ``auth_time``)."""
    last_seen_at: datetime
    """When the token was last re-issued (once per ``update_age``, or when it changed)."""
    user_agent: NotRequired[str | None]
    ip_address: NotRequired[str | None]


class AccountTokens(TypedDict, total=False):
    """The argument of :meth:`Adapter.update_account_tokens`: the token keys to set."""

    access_token: str | None
    token_type: str | None
    id_token: str | None
    refresh_token: str | None
    scope: str | None
    expires_at: int | None


class SessionAndUser(TypedDict):
    """What :meth:`Adapter.get_session_and_user` returns."""

    session: AdapterSession
    user: AdapterUser


class VerificationToken(TypedDict):
    """A one-time e-mail sign-in token; ``token`` is stored hashed (by the engine)."""

    identifier: str
    token: str
    expires: datetime


class Authenticator(TypedDict):
    """A WebAuthn credential (passkey) of a user."""

    credential_id: str
    user_id: str
    provider_account_id: str
    credential_public_key: str
    counter: int
    credential_device_type: str
    credential_backed_up: bool
    transports: NotRequired[str | None]


class UserAndAccount(TypedDict):
    """What :meth:`AtomicSignUp.create_user_and_account` returns."""

    user: AdapterUser
    account: AdapterAccount


class TwoFactor(TypedDict):
    """A user's second factor (not in Auth.js): what :class:`AccountStore` keeps."""

    user_id: str
    totp_secret: str
    """The authenticator app's shared secret, encrypted by the engine (never in clear)."""
    totp_last_step: int | None
    """The time step of the last code accepted: a code of this step or an earlier one is
    refused (no replay)."""
    recovery_codes: list[str]
    """The unused recovery codes, each as the engine's keyed hash (never in clear)."""
    enabled_at: datetime
    """When it was set up (a new set-up voids "trust this device" cookies made before)."""


class AdapterConflict(Exception):
    """A write would duplicate a unique key: an e-mail, an account, a session token,
    a verification token or a credential id (e.g. the loser of a sign-up race)."""


@runtime_checkable
class Adapter(Protocol):
    """Auth.js's database adapter interface (``@auth/core/adapters``) in snake_case.

    Every method is optional in a custom adapter; start-up checks that the ones
    the configured features need exist and names any that are missing.
    """

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        """Store a new user (``id`` may be kept or replaced); return it as stored."""
        ...

    async def get_user(self, user_id: str) -> AdapterUser | None:
        """The user with ``user_id``, or ``None``."""
        ...

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        """The user with exactly this e-mail address, or ``None``."""
        ...

    async def get_user_by_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterUser | None:
        """The user an account of ``provider`` is linked to, or ``None``."""
        ...

    async def update_user(self, user: UserUpdate) -> AdapterUser:
        """Change the keys given (``id`` says which user); return the whole user.

        Raises :class:`LookupError` when there is no such user.
        """
        ...

    async def delete_user(self, user_id: str) -> AdapterUser | None:
        """Delete a user with their sessions, accounts, authenticators and session records,
        all or nothing; return it."""
        ...

    async def link_account(self, account: AdapterAccount) -> AdapterAccount:
        """Link an account to ``account["user_id"]``; return it as stored."""
        ...

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        """Remove the link; return the account, or ``None`` when it was not linked.

        A passkey account's authenticators (``provider_account_id`` = their credential id)
        are deleted with it, in the same transaction."""
        ...

    async def create_session(self, session: AdapterSession) -> AdapterSession:
        """Store a new session for an existing user."""
        ...

    async def get_session_and_user(self, session_token: str) -> SessionAndUser | None:
        """The session and its user, or ``None`` (expired sessions are returned as they are)."""
        ...

    async def update_session(self, session: SessionUpdate) -> AdapterSession | None:
        """Change the keys given (``session_token`` says which); ``None`` if there is none."""
        ...

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        """Delete a session; return it, or ``None`` when there was none."""
        ...

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        """Store a verification token."""
        ...

    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        """Delete and return the token matching both ``identifier`` and ``token``, else ``None``.

        Atomic: of two racing uses of one token, exactly one gets it.
        """
        ...

    async def get_account(self, provider: str, provider_account_id: str) -> AdapterAccount | None:
        """The account of ``provider`` with this id, or ``None``."""
        ...

    async def list_accounts_by_user_id(self, user_id: str) -> list[AdapterAccount]:
        """The user's linked accounts (empty when none). Not in Auth.js: refresh-token
        rotation reads them (database sessions)."""
        ...

    async def update_account_tokens(
        self,
        provider: str,
        provider_account_id: str,
        expected_refresh_token: str | None,
        tokens: AccountTokens,
    ) -> AdapterAccount | None:
        """Compare-and-swap: set the token keys ``tokens`` gives on the account, but only if
        its ``refresh_token`` is still ``expected_refresh_token``; the updated account, or
        ``None`` when it changed meanwhile (or there is no such account). Not in Auth.js."""
        ...

    async def delete_sessions_by_user_id(self, user_id: str) -> int:
        """Delete every session of the user ("sign out everywhere"); how many there were."""
        ...

    async def delete_sessions_by_sid(self, sid: str) -> int:
        """Delete the sessions whose ``sid`` is ``sid`` (back-channel logout of one provider
        session); how many there were. Not in Auth.js."""
        ...

    async def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None = None
    ) -> None:
        """Refuse sessions of ``key`` (``user:<id>``, ``sid:<sid>``, ...) issued before
        ``not_before`` from now on; a later mark of the same key wins, an earlier is ignored.

        ``expires`` is when no session the mark covers can still be valid: from then on the
        mark may be forgotten (``None``: keep it). The stores drop a mark once a later
        call's ``not_before`` (the engine's "now") has passed its ``expires``, or by TTL.
        """
        ...

    async def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        """The latest "not before" mark of any of ``keys``, or ``None`` when none has one."""
        ...

    async def get_authenticator(self, credential_id: str) -> Authenticator | None:
        """The authenticator with this credential id, or ``None``."""
        ...

    async def create_authenticator(self, authenticator: Authenticator) -> Authenticator:
        """Store a new authenticator for an existing user."""
        ...

    async def list_authenticators_by_user_id(self, user_id: str) -> list[Authenticator]:
        """The user's authenticators (empty when none)."""
        ...

    async def update_authenticator_counter(
        self, credential_id: str, new_counter: int
    ) -> Authenticator:
        """Set the signature counter; raises :class:`LookupError` when there is no such one."""
        ...

    async def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        """Add one to the rate-limit counter ``key``; return its ``(count, reset_at)``.

        See :class:`Counters`. Not in Auth.js."""
        ...


@runtime_checkable
class Counters(Protocol):
    """The rate-limit counters: one method, so any store can keep them.

    ``increment_counter(key, window, now)`` adds one to the counter ``key`` and returns
    ``(count, reset_at)``. A counter that does not exist, or whose ``reset_at`` is at or
    before ``now``, starts again: ``count`` 1, ``reset_at`` = ``now`` + ``window``
    seconds. It is atomic: of ``n`` concurrent increments of one counter in one window,
    each gets a different ``count`` from 1 to ``n``. ``now`` is the engine's clock (an
    aware UTC datetime): a store compares times with it, never with its own clock, and
    may forget a counter once its ``reset_at`` has passed. Keys are opaque strings
    (the engine's are HMACs, never an e-mail or address in clear). The method may be
    sync or async. Every adapter of :mod:`io_bindings.db` implements it;
    :class:`io_bindings.db.memory.MemoryCounters` alone is the runtimes' default.
    """

    def increment_counter(self, key: str, window: int, now: datetime) -> Any:
        """``(count, reset_at)``, or an awaitable of it."""
        ...


@runtime_checkable
class SingleFlightStore(Protocol):
    """Where concurrent refreshes of one refresh token meet across processes (not in Auth.js).

    A provider that rotates refresh tokens takes each one once, and many revoke the whole grant
    when one comes back: of the processes that find a session's access token due at the same
    moment, exactly one may send the refresh token. The engine asks the store, by ``key`` (a
    hash of the token endpoint and the refresh token, never the token):

    * ``claim_refresh(key, owner, lease)`` → ``(claimed, answer)``: the answer kept for
      ``key`` if there is one (``(False, answer)``); else the lease, if nobody holds it, for
      ``lease`` seconds to ``owner`` (``(True, None)``: send the request); else
      ``(False, None)``: another process is sending it. Atomic.
    * ``await_refresh(key, wait)`` → the answer once it is kept, or ``None`` when the lease
      ends without one (its holder failed or died) or ``wait`` seconds pass.
    * ``finish_refresh(key, owner, answer, keep)``: keep ``answer`` for ``keep`` seconds, or
      with ``None`` (the attempt failed, or the kept answer is spent) keep none; and end
      ``owner``'s lease (only its own).

    Answers are opaque bytes (sealed with a key derived from the refresh token: the store
    never sees the tokens). Methods may be sync or async.
    """

    def claim_refresh(self, key: str, owner: str, lease: float) -> Any:
        """``(claimed, answer)``, or an awaitable of it."""
        ...

    def await_refresh(self, key: str, wait: float) -> Any:
        """The answer or ``None``, or an awaitable of it."""
        ...

    def finish_refresh(self, key: str, owner: str, answer: bytes | None, keep: float) -> Any:
        """``None``, or an awaitable of it."""
        ...


@runtime_checkable
class AtomicSignUp(Protocol):
    """An optional extension: create a user and link their first account in one transaction.

    When the adapter has it the engine's sign-up cannot leave a user without
    the account it was created for; otherwise the engine compensates by
    deleting the new user when linking fails.
    """

    async def create_user_and_account(
        self, user: AdapterUser, account: AdapterAccount
    ) -> UserAndAccount:
        """:meth:`Adapter.create_user` then :meth:`Adapter.link_account` (its ``user_id``
        set to the new user's id), all or nothing."""
        ...


@runtime_checkable
class AccountStore(Protocol):
    """The methods the account features need (beyond Auth.js): password hashes and second
    factors (password accounts, two-factor authentication), and the user's own list of
    sessions (database sessions by user, the records of JWT sessions).

    Every adapter of :mod:`io_bindings.db` (and the SQLAlchemy and Django ORM stores) has
    them; another adapter adds them to offer these features (start-up, or the route that
    needs one, names the missing ones). Like the others, each is atomic; the rows go when
    their user is deleted (:meth:`Adapter.delete_user`).
    """

    async def get_password_hash(self, user_id: str) -> str | None:
        """The user's password hash, or ``None`` (no password, or no such user)."""
        ...

    async def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        """Set (or with ``None`` remove) the user's password hash; :class:`LookupError` when
        there is no such user."""
        ...

    async def get_two_factor(self, user_id: str) -> TwoFactor | None:
        """The user's second factor, or ``None`` when they have none."""
        ...

    async def set_two_factor(self, two_factor: TwoFactor) -> TwoFactor:
        """Store the user's second factor, replacing the one they had;
        :class:`LookupError` when there is no such user."""
        ...

    async def delete_two_factor(self, user_id: str) -> TwoFactor | None:
        """Remove the user's second factor; return it, or ``None`` when there was none."""
        ...

    async def use_totp_step(self, user_id: str, step: int) -> bool:
        """Compare-and-set: record ``step`` as the last accepted time step if it is later
        than the one recorded (or none is); whether it was. Of two racing uses of one code,
        exactly one gets ``True``."""
        ...

    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        """Remove ``code_hash`` from the user's recovery codes; whether it was there (of two
        racing uses of one code, exactly one gets ``True``)."""
        ...

    async def list_sessions_by_user_id(self, user_id: str) -> list[AdapterSession]:
        """The user's database sessions, expired ones included (empty when none): the user's
        list of sessions reads them."""
        ...

    async def create_session_record(self, record: SessionRecord) -> SessionRecord:
        """Keep the record of a new JWT session (``sid`` is new); :class:`AdapterConflict` on
        a known ``sid``."""
        ...

    async def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> SessionRecord | None:
        """Set a session record's ``last_seen_at`` and ``expires``; the record, or ``None`` when
        there is none (it is not created)."""
        ...

    async def list_session_records(self, user_id: str) -> list[SessionRecord]:
        """The user's session records, expired ones included (a store may forget those)."""
        ...

    async def delete_session_record(self, sid: str) -> SessionRecord | None:
        """Forget a session record; return it, or ``None`` when there was none."""
        ...
