"""The fleet's workload: browsers of a few users, two per user, each on one of the two sites
(database or JWT sessions), running weighted scenarios through the load balancer.

Besides what :mod:`soak.workload` checks on every answer (the session is the one the browser
expects, no 5xx), the scenarios here measure the fleet: which node each request landed on,
bursts of concurrent access-token reads at expiry (every token they get must be one the OP
takes), renewals after ``update_age``, and how long a revocation or a back-channel logout
takes to be refused by *every* node (probed directly, past the balancer).

A problem met while a store is down (see :class:`Outages`) is a fail-closed answer, counted
by outage and scenario; anywhere else it is a mismatch and fails the soak.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx

from soak.workload import UNKNOWN, Browser, Mismatch, Tally, expect, read_session
from tests.oidc_op.login import _first_form
from tests.oidc_op.provider import LoginFailed, OpenIDProvider

from .app import NODE_HEADER, PREFIXES

BURST = 6
"""Concurrent access-token reads in a burst: two per node."""
PROBE_CONNECTIONS = 4
"""Requests per node and probe round, each on a new connection (to reach both workers)."""
REFUSAL_LIMIT = 1.0
"""Seconds within which every node must refuse a revoked session."""
PROBE_FOR = 5.0
"""Seconds a probe keeps trying before it reports the session was never refused."""
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
    users: dict[str, list[FleetBrowser]] = field(default_factory=lambda: defaultdict(list))
    until: float = float("inf")
    """When the browsers stop (``time.monotonic()``): set once the faults are over."""

    def running(self) -> bool:
        return time.monotonic() < self.until


class FleetBrowser(Browser):
    """A browser of ``user`` on the ``strategy`` site, through the balancer."""

    def __init__(self, world: World, strategy: str, user: str) -> None:
        super().__init__(world.url + PREFIXES[strategy], world.op, world.tally)
        self.world, self.strategy, self.user = world, strategy, user
        self.tally: FleetTally = world.tally
        self.renewed_at = 0.0
        self.op_session = False
        world.users[user].append(self)

    async def send(self, kind: str, method: str, path: str, **options: Any) -> httpx.Response:
        """One request; a 5xx fails the step (a documented one while a store is down is
        counted as fail-closed instead of as a server error)."""
        self.tally.requests[kind] += 1
        start = time.monotonic()
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
        return response

    def session_set(self, response: httpx.Response) -> bool:
        return any(
            line.startswith("authjs.session-token=") and "Max-Age=0" not in line
            for line in response.headers.get_list("set-cookie")
        )

    def others(self) -> list[FleetBrowser]:
        """The user's other browsers."""
        return [b for b in self.world.users[self.user] if b is not self]

    async def sign_in(self) -> None:
        """The OIDC round trip through the balancer (the OP's pages directly)."""
        response = await self.post_form("oidc sign-in", "/auth/signin/op", {})
        started_on = response.headers.get(NODE_HEADER)
        location = response.headers["location"]
        expect(location.startswith(self.op.authorization_endpoint), f"redirected to {location}")
        answer = await self.op.alogin(self.http, location, user=self.user)
        self.op_session = True
        callback = await self.send("oidc callback", "GET", answer.url)
        landed = "same node" if callback.headers.get(NODE_HEADER) == started_on else "elsewhere"
        self.tally.callbacks[landed] += 1
        expect(callback.status_code == 302, f"the callback answered {callback.status_code}")
        location = callback.headers["location"]
        if "/auth/error" in location:
            await self.send("error page", "GET", location)
        expect(location == self.url + "/", f"the OIDC callback redirected to {location}")
        self.expected = f"{self.user}@example.test"
        await read_session(self)

    async def read(self) -> Any:
        """The session, checked (or learnt, when not known)."""
        learning = self.expected == UNKNOWN
        session = await read_session(self)
        if learning:
            self.expected = session["user"]["email"] if session else None
        return session

    async def ensure_signed_in(self) -> None:
        if self.expected in (None, UNKNOWN) and not await self.read():
            await self.sign_in()


async def probe(world: World, strategy: str, cookie: str) -> float | None:
    """Seconds until every node refuses the session ``cookie`` (``None``: not in
    :data:`PROBE_FOR`). Each round asks every node :data:`PROBE_CONNECTIONS` times, each on
    a connection of its own."""
    start = time.monotonic()
    path = f"{PREFIXES[strategy]}/auth/session"
    headers = {"cookie": f"authjs.session-token={cookie}", "connection": "close"}
    while (elapsed := time.monotonic() - start) < PROBE_FOR:
        answers = []
        async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
            for url in world.nodes():
                for _ in range(PROBE_CONNECTIONS):
                    try:
                        response = await http.get(url + path, headers=headers)
                    except httpx.TransportError:
                        break  # going down for a restart: not one of "every node" now
                    answers.append(response.status_code == 200 and response.json() is None)
        if answers and all(answers):
            return elapsed
        await anyio.sleep(0.05)
    return None


# -- scenarios ---------------------------------------------------------------------------------


async def session_read(browser: FleetBrowser) -> None:
    await browser.read()


async def renewal(browser: FleetBrowser) -> None:
    """Idle until ``update_age`` has passed since the cookie was last set, then a read: it
    sets the cookie again (the JWT re-encrypted, the database row's expiry pushed back)."""
    await browser.ensure_signed_in()
    due = browser.renewed_at + browser.world.update_age + 1
    await anyio.sleep(max(0.0, due - time.monotonic()))
    before = browser.renewed_at
    if await browser.read() is None:
        return  # signed out meanwhile (another browser of the user revoked everything)
    expect(browser.renewed_at > before, "no new session cookie after update_age")
    browser.tally.renewals[browser.strategy] += 1


async def token_burst(browser: FleetBrowser) -> None:
    """:data:`BURST` concurrent access-token reads (over the nodes, round robin): each gets a
    token, and every token they get is one the OP takes."""
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
    expect(None not in tokens, f"no access token in a burst: {[a.text for a in answers]}")
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
    """ "Sign out everywhere": every node refuses the session within :data:`REFUSAL_LIMIT`."""
    await browser.ensure_signed_in()
    cookie = browser.session_cookie()
    expect(cookie is not None, "no session cookie to revoke")
    assert cookie is not None
    for other in browser.others():
        other.expected = UNKNOWN  # signed out too, unless signing in meanwhile
    response = await browser.send("revoke", "POST", "/api/revoke", json={})
    expect(response.status_code == 200, f"revoke answered {response.status_code}")
    await _refused_everywhere(browser, cookie, "revoke")


async def backchannel_logout(browser: FleetBrowser) -> None:
    """The user signs out at the OP; its back-channel logout reaches one node; every node
    refuses the session within :data:`REFUSAL_LIMIT`."""
    if not browser.op_session:
        await browser.sign_in()
    await browser.ensure_signed_in()
    cookie = browser.session_cookie()
    expect(cookie is not None, "no session cookie to log out")
    assert cookie is not None
    for other in browser.others():
        other.expected = UNKNOWN
    page = await browser.http.get(f"{browser.op.issuer}/session/end")
    expect(page.status_code == 200, f"the OP's logout page answered {page.status_code}")
    form = _first_form(page.text)
    action = httpx.URL(str(page.url)).join(form.action)
    done = await browser.http.post(action, data={**form.fields, "logout": "yes"})
    browser.op_session = False
    expect(done.status_code in (200, 302, 303), f"the OP's logout answered {done.status_code}")
    await _refused_everywhere(browser, cookie, "back-channel")


async def _refused_everywhere(browser: FleetBrowser, cookie: str, how: str) -> None:
    seconds = await probe(browser.world, browser.strategy, cookie)
    expect(seconds is not None, f"a {how} was not refused by every node in {PROBE_FOR} s")
    assert seconds is not None
    browser.tally.refusals[f"{how} {browser.strategy}"].append(seconds)
    expect(seconds <= REFUSAL_LIMIT, f"a {how} took {seconds:.2f} s to reach every node")
    browser.expected = None
    await browser.read()


async def csrf(browser: FleetBrowser) -> None:
    await browser.csrf_token()


Scenario = Callable[[FleetBrowser], Awaitable[None]]
SCENARIOS: dict[str, tuple[Scenario, int]] = {
    "session read": (session_read, 40),
    "renewal": (renewal, 3),
    "access-token burst": (token_burst, 10),
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
        described = f"{type(problem).__name__}: {problem}"
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
