"""The fleet's workload: browsers of a few users, two per user, each on one of the two sites
(database or JWT sessions), running weighted scenarios through the load balancer.

Besides what :mod:`soak.workload` checks on every answer (the session is the one the browser
expects, no 5xx), the scenarios here measure the fleet: which node each request landed on,
bursts of concurrent access-token reads at expiry (every token they get must be one the OP
takes), renewals after ``update_age``, and how long a revocation or a back-channel logout
takes to be refused by *every* node (probed directly, past the balancer: :mod:`.probes`).

A problem met while a store is down (see :class:`Outages`) is a fail-closed answer, counted
by outage and scenario; anywhere else it is a mismatch and fails the soak.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx

from soak.workload import UNKNOWN, Browser, Mismatch, Tally, expect
from tests.oidc_op.login import _first_form
from tests.oidc_op.provider import LoginFailed, OpenIDProvider

from .app import NODE_HEADER, PREFIXES
from .probes import PROBE_FOR, REFUSAL_LIMIT, probe, signed_in_somewhere

BURST = 6
"""Concurrent access-token reads in a burst: two per node."""
RACE_MARGIN = 1.5
"""Seconds before a browser last saw its session within which a revocation of its user may
still end it: token times are whole seconds, and other workers cache a revocation check for
``revocation_cache_ttl``."""
FAIL_CLOSED_5XX = frozenset({("revoke", 503), ("error page", 500)})
"""The 5xx answers documented for a store that is down: "sign out everywhere" cannot be
done (503), and a sign-in that could not be completed shows the error page (500,
``error=Configuration``, as Auth.js)."""


@dataclass
class Outage:
    """A store down from ``start`` until the fleet answered again at ``end``."""

    name: str
    start: float
    end: float | None = None


class Outages:
    """The store outages so far (``time.monotonic()``), recorded by the faults."""

    def __init__(self) -> None:
        self.all: list[Outage] = []

    def begin(self, name: str) -> Outage:
        outage = Outage(name, time.monotonic())
        self.all.append(outage)
        return outage

    def during(self, start: float, end: float) -> str | None:
        """The name of an outage overlapping ``[start, end]``, if any."""
        for outage in self.all:
            if outage.start <= end and (outage.end is None or start <= outage.end):
                return outage.name
        return None


@dataclass
class FleetTally(Tally):
    """What the fleet's browsers saw, beyond :class:`soak.workload.Tally`."""

    fail_closed: Counter[str] = field(default_factory=Counter)
    """``"<outage>: <scenario or answer>"`` → how many."""
    fail_closed_examples: list[str] = field(default_factory=list)
    callbacks: Counter[str] = field(default_factory=Counter)
    """``"elsewhere"`` / ``"same node"``: the callback's node against the sign-in's."""
    bursts: Counter[str] = field(default_factory=Counter)
    """Bursts by how many distinct nodes answered them (``"3 nodes"``) and ``"refreshed"``."""
    refusals: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """``"<how> <strategy>"`` → seconds until every node refused the session."""
    renewals: Counter[str] = field(default_factory=Counter)
    raced: int = 0
    """Sessions found ended by a revocation of their user that raced with their sign-in."""
    resent: int = 0
    """Requests sent once more after their kept-alive connection closed before any answer."""
    others_refused: int = 0
    """Sessions of a user's other browsers checked refused after "sign out everywhere"."""
    refused_untimed: int = 0
    """Revoked sessions refused by every node, each restarted while it was probed (so no
    time is the revocation's)."""

    def fail(self, outage: str, what: str, problem: str) -> None:
        self.fail_closed[f"{outage}: {what}"] += 1
        if len(self.fail_closed_examples) < 5:
            self.fail_closed_examples.append(f"{outage}: {what}: {problem}")


class FailClosed(Exception):
    """A documented fail-closed 5xx, while a store is down."""


@dataclass
class World:
    """What every browser shares: the fleet's addresses, the OP, the outages, the tally."""

    url: str
    nodes: Callable[[], list[str]]
    """The URLs of the nodes up now (for probes past the balancer)."""
    op: OpenIDProvider
    outages: Outages
    tally: FleetTally
    update_age: int
    access_token_ttl: int
    users: dict[str, list[FleetBrowser]] = field(default_factory=lambda: defaultdict(list))
    revoking: Counter[str] = field(default_factory=Counter)
    """User → revocations of theirs under way."""
    revoked: dict[str, float] = field(default_factory=dict)
    """User → when the last revocation of theirs ended."""
    until: float = float("inf")
    """When the browsers stop (``time.monotonic()``): set once the faults are over."""
    started: float = field(default_factory=time.monotonic)

    def at(self) -> str:
        """Now, as seconds since the world began (``t+12s``)."""
        return f"t+{time.monotonic() - self.started:.0f}s"

    def running(self) -> bool:
        return time.monotonic() < self.until

    def revoked_since(self, user: str, since: float) -> bool:
        """Whether a revocation of ``user`` may have ended a session seen at ``since``."""
        return bool(self.revoking[user]) or self.revoked.get(user, -1.0) >= since - RACE_MARGIN


class FleetBrowser(Browser):
    """A browser of ``user`` on the ``strategy`` site, through the balancer."""

    def __init__(self, world: World, strategy: str, user: str) -> None:
        super().__init__(world.url + PREFIXES[strategy], world.op, world.tally)
        self.world, self.strategy, self.user = world, strategy, user
        self.tally: FleetTally = world.tally
        self.renewed_at = 0.0
        self.since = 0.0
        """When the session the browser expects was last known to exist."""
        self.op_session = False
        self.signing_in = False
        self.signed_in_at = 0.0
        """When the browser's last sign-in ended (whatever its outcome)."""
        self.last: httpx.Response | None = None
        world.users[user].append(self)

    async def send(
        self, kind: str, method: str, path: str, *, since: float | None = None, **options: Any
    ) -> httpx.Response:
        """One request; a 5xx fails the step (a documented one while a store is down is
        counted as fail-closed instead of as a server error). ``since``: when the request
        that led to this one was sent (the error page's status is the callback's failure)."""
        self.tally.requests[kind] += 1
        start = time.monotonic() if since is None else since
        try:
            response = await self.http.request(method, path, **options)
        except httpx.RemoteProtocolError:
            # as browsers do: a request whose kept-alive connection closed before any answer
            # is sent once more, on a new connection (here: at a node's death, the balancer
            # closing its side)
            self.tally.resent += 1
            response = await self.http.request(method, path, **options)
        if response.status_code >= 500:
            outage = self.world.outages.during(start, time.monotonic())
            if outage is not None and (kind, response.status_code) in FAIL_CLOSED_5XX:
                self.tally.fail(outage, f"{kind} {response.status_code}", response.text[:100])
                raise FailClosed(kind)
            self.tally.server_errors[f"{kind} {response.status_code}"] += 1
            raise Mismatch(f"{kind}: {response.status_code} {response.text[:200]}")
        if self.session_set(response):
            self.renewed_at = time.monotonic()
        self.last = response
        return response

    def session_set(self, response: httpx.Response) -> bool:
        return any(
            line.startswith("authjs.session-token=") and "Max-Age=0" not in line
            for line in response.headers.get_list("set-cookie")
        )

    async def sign_in(self) -> None:
        """The OIDC round trip through the balancer (the OP's pages directly)."""
        self.since = time.monotonic()
        self.signing_in = True
        try:
            await self._sign_in()
        finally:
            self.signing_in = False
            self.signed_in_at = time.monotonic()

    async def _sign_in(self) -> None:
        response = await self.post_form("oidc sign-in", "/auth/signin/op", {})
        started_on = response.headers.get(NODE_HEADER)
        location = response.headers["location"]
        expect(location.startswith(self.op.authorization_endpoint), f"redirected to {location}")
        answer = await self.op.alogin(self.http, location, user=self.user)
        self.op_session = True
        called_back = time.monotonic()
        callback = await self.send("oidc callback", "GET", answer.url)
        landed = "same node" if callback.headers.get(NODE_HEADER) == started_on else "elsewhere"
        self.tally.callbacks[landed] += 1
        expect(callback.status_code == 302, f"the callback answered {callback.status_code}")
        location = callback.headers["location"]
        if "/auth/error" in location:
            await self.send("error page", "GET", location, since=called_back)
        expect(location == self.url + "/", f"the OIDC callback redirected to {location}")
        self.expected = f"{self.user}@example.test"
        await self.read()

    async def read(self) -> Any:
        """The session, checked against the one expected (learnt when not known). A session
        ended by a revocation of its user that raced with it is counted, not a mismatch
        (:meth:`ended`)."""
        sent = time.monotonic()
        response = await self.send("session", "GET", "/auth/session")
        expect(response.status_code == 200, f"session answered {response.status_code}")
        session = response.json()
        email = session["user"]["email"] if session else None
        if self.expected == UNKNOWN:
            self.expected = email
        elif email != self.expected and (email is not None or not self.ended(sent)):
            raise Mismatch(f"signed in as {email}, not {self.expected}")
        if email is not None:
            self.since = time.monotonic()
        return session

    def ended(self, sent: float) -> bool:
        """Whether the null answer to a read sent at ``sent`` ended the session the browser
        expects, as a revocation of its user that raced with it may (then it is counted, and
        the browser expects none). The answer must have deleted the session cookie: one that
        keeps it is a store's fail-closed answer, and the session is still there. Never
        while a store is down: the revocation may have failed too (the mismatch is counted as
        the outage's, and the browser learns its session again)."""
        if self.session_cookie() is not None:
            return False
        if self.world.outages.during(sent, time.monotonic()) is not None:
            return False
        if not self.world.revoked_since(self.user, self.since):
            return False
        self.tally.raced += 1
        self.expected = None
        return True

    async def settled_read(self) -> Any:
        """:meth:`read`, once every node must have seen a revocation that made an answer
        other than a read's say "no session" (:data:`REFUSAL_LIMIT` later): a burst's answers
        race each other for the cookie, a revoke's 401 does not delete it, and the node that
        answered may have seen a revocation of the user that the next one has not yet."""
        await anyio.sleep(REFUSAL_LIMIT)
        return await self.read()

    async def ensure_signed_in(self) -> bool:
        """Signed in (a sign-in if need be); ``False`` when a revocation of the user raced
        with it."""
        if self.expected in (None, UNKNOWN) and not await self.read():
            await self.sign_in()
        return self.expected is not None


# -- scenarios ---------------------------------------------------------------------------------


async def session_read(browser: FleetBrowser) -> None:
    await browser.read()


async def renewal(browser: FleetBrowser) -> None:
    """Idle until ``update_age`` has passed since the cookie was last set, then a read: it
    sets the cookie again (the JWT re-encrypted, the database row's expiry pushed back)."""
    await browser.ensure_signed_in()
    due = browser.renewed_at + browser.world.update_age + 1
    if due > browser.world.until:
        return
    await anyio.sleep(max(0.0, due - time.monotonic()))
    before = browser.renewed_at
    if await browser.read() is None:
        return  # signed out meanwhile (another browser of the user revoked everything)
    expect(browser.renewed_at > before, "no new session cookie after update_age")
    browser.tally.renewals[browser.strategy] += 1


async def token_burst(browser: FleetBrowser) -> None:
    """:data:`BURST` concurrent access-token reads (over the nodes, round robin): each gets a
    token, and every token they get is one the OP takes."""
    await _burst(browser, "due")


async def expired_burst(browser: FleetBrowser) -> None:
    """Idle until the access token has expired, then a burst: every read waits for the one
    refresh (on whichever node claimed it), and all get the same new token (a JWT session's
    token, which only this browser refreshes; a user's other browser may keep the account
    row of database sessions fresh meanwhile)."""
    await browser.ensure_signed_in()
    wake = time.monotonic() + browser.world.access_token_ttl + 1
    if wake > browser.world.until:
        return
    await anyio.sleep(wake - time.monotonic())
    await _burst(browser, "expired")


async def _burst(browser: FleetBrowser, kind: str) -> None:
    await browser.ensure_signed_in()
    answers: list[httpx.Response] = []

    async def one() -> None:
        answers.append(await browser.send("access token", "GET", "/api/token"))

    async with anyio.create_task_group() as group:
        for _ in range(BURST):
            group.start_soon(one)
    tokens = {answer.json()["token"] for answer in answers}
    nodes = {answer.headers.get(NODE_HEADER) for answer in answers}
    browser.tally.bursts[f"{len(nodes)} nodes"] += 1
    if None in tokens and await browser.settled_read() is None:
        return  # ended meanwhile (the read tells whether it may have been)
    expect(None not in tokens, f"no access token in a burst: {[a.text for a in answers]}")
    if kind == "expired" and browser.strategy == "jwt":  # (an account row is shared)
        expect(len(tokens) == 1, f"{len(tokens)} access tokens after expiry: not one refresh")
        browser.tally.bursts["after expiry"] += 1
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        for token in tokens:
            bearer = {"authorization": f"Bearer {token}"}
            userinfo = await http.get(browser.op.userinfo_endpoint, headers=bearer)
            expect(userinfo.status_code == 200, f"the OP refused an access token: {userinfo.text}")
    if len(tokens) > 1:
        browser.tally.bursts["refreshed"] += 1


async def sign_in(browser: FleetBrowser) -> None:
    await browser.sign_in()


async def sign_out(browser: FleetBrowser) -> None:
    await browser.ensure_signed_in()
    await browser.post_form("sign-out", "/auth/signout", {})
    browser.expected = None
    await browser.read()


async def revoke_everywhere(browser: FleetBrowser) -> None:
    """ "Sign out everywhere": every node refuses the session within :data:`REFUSAL_LIMIT`,
    and then the sessions of the user's other browsers signed in before it too (whatever
    cookie they hold by then: one re-issued meanwhile must be refused as well)."""
    cookie = await _signed_in_cookie(browser)
    if cookie is None:
        return
    started = time.monotonic()
    async with revoking(browser):
        response = await browser.send("revoke", "POST", "/api/revoke", json={})
    if response.status_code == 401 and await browser.settled_read() is None:
        return  # ended meanwhile (as for a burst)
    expect(response.status_code == 200, f"revoke answered {response.status_code}")
    await _refused_everywhere(browser, cookie, "revoke", started)
    for other in browser.world.users[browser.user]:
        if other is browser or other.signing_in or other.signed_in_at >= started - RACE_MARGIN:
            continue  # a session of that browser may be newer than the revocation
        held = other.session_cookie()
        if held is None:
            continue
        nodes = await signed_in_somewhere(browser.world.nodes(), browser.strategy, held)
        expect(not nodes, f"another browser of the user still signed in on {nodes}")
        browser.tally.others_refused += 1


async def backchannel_logout(browser: FleetBrowser) -> None:
    """The user signs out at the OP; its back-channel logout reaches one node; every node
    refuses the session within :data:`REFUSAL_LIMIT`."""
    if not browser.op_session:
        await browser.sign_in()
    cookie = await _signed_in_cookie(browser)
    if cookie is None:
        return
    page = await browser.http.get(f"{browser.op.issuer}/session/end")
    expect(page.status_code == 200, f"the OP's logout page answered {page.status_code}")
    form = _first_form(page.text)
    action = httpx.URL(str(page.url)).join(form.action)
    started = time.monotonic()
    async with revoking(browser):  # the OP's logout token may end every session of the user
        done = await browser.http.post(action, data={**form.fields, "logout": "yes"})
    browser.op_session = False
    expect(done.status_code in (200, 302, 303), f"the OP's logout answered {done.status_code}")
    await _refused_everywhere(browser, cookie, "back-channel", started)


async def _signed_in_cookie(browser: FleetBrowser) -> str | None:
    """The session cookie of ``browser``, signed in first if need be (``None``: it could not
    be, for a reason the tally knows)."""
    if not await browser.ensure_signed_in():
        return None
    cookie = browser.session_cookie()
    jar = sorted(c.name for c in browser.http.cookies.jar)
    expect(cookie is not None, f"no session cookie ({browser.expected}; {jar})")
    return cookie


@asynccontextmanager
async def revoking(browser: FleetBrowser) -> AsyncIterator[None]:
    """A revocation of ``browser``'s user is under way (see :meth:`World.revoked_since`)."""
    world, user = browser.world, browser.user
    world.revoking[user] += 1
    try:
        yield
    finally:
        world.revoking[user] -= 1
        world.revoked[user] = time.monotonic()


async def _refused_everywhere(browser: FleetBrowser, cookie: str, how: str, started: float) -> None:
    """Every node refuses ``cookie`` within :data:`REFUSAL_LIMIT` of the revocation's answer
    (a revocation made while a store was down may not be done: that is the outage's)."""
    times, holdouts = await probe(browser.world.nodes(), browser.strategy, cookie)
    what = f"a {how} of {browser.strategy} session"
    expect(not holdouts, f"{what} not refused by every node in {PROBE_FOR} s: {holdouts}")
    seconds = max(times, default=None)
    outage = browser.world.outages.during(started, time.monotonic())
    if outage is not None:
        after = "every node restarted" if seconds is None else f"after {seconds:.2f} s"
        browser.tally.fail(outage, f"{how} {browser.strategy}", f"refused, {after}")
    elif seconds is None:
        browser.tally.refused_untimed += 1
    else:
        browser.tally.refusals[f"{how} {browser.strategy}"].append(seconds)
        expect(seconds <= REFUSAL_LIMIT, f"{what} took {seconds:.2f} s to reach every node")
    browser.expected = None
    try:
        await browser.read()
    except Mismatch as error:
        now = browser.session_cookie()
        jar = [
            (c.name, c.domain, c.path, c.value == cookie)
            for c in browser.http.cookies.jar
            if c.name.startswith("authjs.session-token")
        ]
        answer = browser.last
        node = answer.headers.get(NODE_HEADER) if answer is not None else None
        raise Mismatch(
            f"{error} (cookie {'kept' if now == cookie else 'changed'}; {jar}; from {node})"
        ) from error


async def csrf(browser: FleetBrowser) -> None:
    await browser.csrf_token()


Scenario = Callable[[FleetBrowser], Awaitable[None]]
SCENARIOS: dict[str, tuple[Scenario, int]] = {
    "session read": (session_read, 40),
    "renewal": (renewal, 3),
    "access-token burst": (token_burst, 10),
    "burst after expiry": (expired_burst, 1),
    "oidc sign-in": (sign_in, 6),
    "sign-out": (sign_out, 5),
    "csrf": (csrf, 5),
    "revoke everywhere": (revoke_everywhere, 2),
    "back-channel logout": (backchannel_logout, 2),
}
"""Name → (scenario, weight)."""


async def run_scenario(browser: FleetBrowser, name: str, scenario: Scenario) -> None:
    """Run one scenario; count what went wrong (fail-closed while a store was down)."""
    tally = browser.tally
    tally.scenarios[name] += 1
    start = time.monotonic()
    try:
        await scenario(browser)
    except FailClosed:
        browser.expected = UNKNOWN
    except (Mismatch, LoginFailed, httpx.HTTPError) as problem:
        browser.expected = UNKNOWN
        described = f"{browser.world.at()} {type(problem).__name__}: {problem}"
        outage = browser.world.outages.during(start, time.monotonic())
        if outage is not None:
            tally.fail(outage, name, described)
        elif isinstance(problem, httpx.HTTPError):
            tally.transport_errors[name] += 1
            tally.note(name, described)
        else:
            tally.mismatches[name] += 1
            tally.note(name, described)


async def browse(
    browser: FleetBrowser, seed: int, *, think: tuple[float, float] = (0.05, 0.3)
) -> None:
    """Weighted random scenarios while the world runs, with a pause between them (``think``,
    seconds): the fleet is measured busy, not saturated."""
    choose = random.Random(seed)  # noqa: S311 (a reproducible mix, not a secret)
    names = list(SCENARIOS)
    weights = [SCENARIOS[name][1] for name in names]
    while browser.world.running():
        name = choose.choices(names, weights)[0]
        await run_scenario(browser, name, SCENARIOS[name][0])
        await anyio.sleep(choose.uniform(*think))
