"""Benchmarks for sansio-auth: ``python -m bench`` (or ``make bench``) prints one table per
section, every figure with its ratio, and writes them all to ``bench/results.json``.

One module per measurement:

* :mod:`bench.crypto_floor`: AES-256-CBC + HMAC-SHA-512 decrypt and encrypt of the session
  token with ``cryptography`` alone, the in-process floor;
* :mod:`bench.inprocess`, :mod:`bench.revocation`, :mod:`bench.database`: session checks in
  process (engine + async driver, no HTTP): JWT with the default ``update_age`` and with
  ``update_age=0``, with revocation on, and database sessions on SQLite and PostgreSQL;
* :mod:`bench.side_by_side`: ``GET /auth/session`` and ``GET /auth/csrf`` over HTTP, ours
  under uvicorn (pure-Python stack, and uvloop + httptools) and Auth.js under node
  (:mod:`bench.authjs`), with the bare handler of each server (:mod:`bench.bare`) as floor;
* :mod:`bench.database_http`: database sessions over HTTP, ours on SQLite and PostgreSQL,
  Auth.js with ``@auth/pg-adapter`` on the same PostgreSQL;
* :mod:`bench.python_peers` (apps in :mod:`bench.peer_apps`, :mod:`bench.fastapi_users_app`):
  a signed-in FastAPI endpoint over HTTP, ours against Starlette's ``SessionMiddleware`` with
  Authlib, PyJWT and fastapi-users (the ``bench`` extra);
* :mod:`bench.frameworks` (Django project in :mod:`bench.django_peers`): aiohttp's
  ``get_session`` and Django's ``request.auth()`` against their bare endpoints in process,
  and django-allauth;
* :mod:`bench.goals`: the targets, each checked against figures of the same run;
* :mod:`bench.workers`: uvicorn with one worker and with two;
* :mod:`bench.oauth_round_trip`: the OpenID Connect sign-in round trip against a local OP.

Over HTTP the server is pinned to core 0 and the load generator (:mod:`bench.load`: wrk,
else the asyncio client of :mod:`bench.http_load`) to core 1; servers are measured in
alternating rounds (:mod:`bench.plan`) and :mod:`bench.report` prints and writes the figures.
"""

import sys
from pathlib import Path

# the test helpers the bench reuses (servers, the PostgreSQL starter, the npm cache) are
# top-level modules in tests/support, as pytest imports them
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
