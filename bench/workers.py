"""Scale: ``GET /auth/session`` (valid cookie) against uvicorn (httptools + uvloop) with one
worker and with ``--workers 2``, neither the servers nor wrk pinned (the workers need both
cores), in alternating rounds; the ratio is 2 workers ÷ 1."""

from __future__ import annotations

from .app import session_cookie
from .load import Target, alternating, described, first_visit
from .plan import Plan
from .report import Figure
from .servers import running, uvicorn
from .side_by_side import ROUTES

ROW = "GET /auth/session, valid cookie, uvicorn httptools + uvloop, nothing pinned"


def section(plan: Plan) -> str:
    """The title of these figures' table."""
    return f"Workers, requests per second: {described()}, {plan.describe()} (× = 2 workers ÷ 1)"


def worker_figures(plan: Plan) -> list[Figure]:
    """One worker, then two: requests per second, and the scale factor."""
    counts = (1, 2)
    route = ROUTES[0]
    servers = {
        f"{n} worker(s)": uvicorn(route.ours, "httptools + uvloop", workers=n, pin=False)
        for n in counts
    }
    with running(servers) as urls:
        targets: dict[str, Target] = {}
        for name, url in urls.items():
            found = first_visit(url + route.path, session_cookie(), route.expect, keep=True)
            targets[name] = Target(found.url, found.cookie, pin=False)
        rates = alternating(targets, plan.seconds, plan.rounds, warm_up=plan.warm_up)
    one = Figure.best(section(plan), ROW, "1 worker", rates["1 worker(s)"])
    two = Figure.best(section(plan), ROW, "2 workers", rates["2 worker(s)"], one.per_second)
    return [one, two]
