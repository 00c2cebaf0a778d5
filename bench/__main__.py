"""``python -m bench [--seconds S]``: run every benchmark once and print the table."""

from __future__ import annotations

import argparse
import platform
import sys

import cryptography

from .app import DEFAULT_UPDATE_AGE
from .crypto_floor import decrypt_encrypt_per_second
from .database import database_checks_per_second, postgres_adapters, sqlite_adapters
from .http_load import CONNECTIONS, session_requests_per_second
from .inprocess import session_checks_per_second
from .oauth_round_trip import oauth_rows
from .revocation import revocation_rows


def main(argv: list[str] | None = None) -> None:
    """Measure, then print one row per figure with its ratio to the crypto floor."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    seconds = parser.parse_args(argv).seconds

    floor = decrypt_encrypt_per_second(seconds)
    rows = [
        ("crypto floor: AES-256-CBC+HMAC-SHA-512 decrypt+encrypt", floor),
        ("in-process session check, update_age default (no re-issue)",
         session_checks_per_second(DEFAULT_UPDATE_AGE, seconds)),
        ("in-process session check, update_age=0 (re-encrypt, as Auth.js)",
         session_checks_per_second(0, seconds)),
        (f"HTTP GET /auth/session, uvicorn, {CONNECTIONS} keep-alive conns, default",
         session_requests_per_second(DEFAULT_UPDATE_AGE, seconds)),
        (f"HTTP GET /auth/session, uvicorn, {CONNECTIONS} keep-alive conns, update_age=0",
         session_requests_per_second(0, seconds)),
    ]  # fmt: skip
    rows += revocation_rows(seconds)
    for database, adapters in (("SQLite file", sqlite_adapters), ("PostgreSQL", postgres_adapters)):
        with adapters() as make_adapter:
            rows += [
                (f"database session check, in-process, {database}, update_age default",
                 database_checks_per_second(make_adapter, DEFAULT_UPDATE_AGE, seconds)),
                (f"database session check, in-process, {database}, update_age=0 (write each)",
                 database_checks_per_second(make_adapter, 0, seconds)),
            ]  # fmt: skip
    rows += oauth_rows()

    print(
        f"sansio-auth bench: Python {platform.python_version()}, "
        f"cryptography {cryptography.__version__}, {seconds:g} s per figure"
    )
    width = max(len(name) for name, _ in rows)
    print(f"{'measurement':<{width}}  {'per second':>12}  {'µs each':>9}  {'÷ floor':>8}")
    for name, rate in rows:
        print(f"{name:<{width}}  {rate:>12,.0f}  {1e6 / rate:>9.1f}  {rate / floor:>8.3f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
