"""Benchmarks for sansio-auth: ``python -m bench`` (or ``make bench``) prints one table.

* in-process session checks per second (engine + the async driver,
  no HTTP), with the default ``update_age`` and with ``update_age=0`` (re-encrypt on every
  read, as Auth.js does);
* ``GET /auth/session`` requests per second over HTTP against uvicorn, with a valid cookie;
* in-process database-session checks per second, the session and user read from SQLite
  (a file) and from PostgreSQL (a throw-away local cluster), without and with a write per
  check (``update_age=0``);
* the full OpenID Connect sign-in round trip (sign-in, the OP's login and consent,
  callback, session) against a local OP (npm ``oidc-provider``), median of 20, and
  the share of it spent in the engine's flow steps;
* the crypto floor: AES-256-CBC + HMAC-SHA-512 decrypt and encrypt of the same token with
  ``cryptography`` alone, and each figure's ratio to it.
"""
