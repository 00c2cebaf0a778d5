"""The database adapter conformance suite: Auth.js's shared adapter tests, and more, for pytest.

Run it on your own adapter with three lines in a test module::

    from io_bindings.testing.adapter_suite import AdapterSuite

    class TestMyAdapter(AdapterSuite):
        make_adapter = staticmethod(lambda: MyAdapter("postgresql://.../test"))

Each test makes one adapter with ``make_adapter()`` on a database that must be **empty**
(or override the ``adapter`` fixture, e.g. to create and drop a database per test), and
closes it after the test when it has ``aclose``. The tests drive every method of
:class:`sansio_auth.adapters.Adapter` as Auth.js's shared adapter tests do
(``packages/utils/adapter.ts``): users, accounts, sessions, single-use verification
tokens that must match both identifier and token, unlink, cascading deletes,
authenticators, times that come back in UTC; password hashes and second factors (ours:
:class:`sansio_auth.adapters.AccountStore`); a user's own sessions (listed, with their
device) and the records of JWT sessions (ours); and what the engine relies on when requests
race: of concurrent first sign-ups with one e-mail address exactly one makes a user, of
concurrent uses of one token exactly one gets it. Beyond Auth.js: refresh-token rotation's
and revocation's methods, the rate-limit counters (``increment_counter``), sessions that
keep their provider session (``sid``, ``delete_sessions_by_sid``) and revocation marks made
with their expiry. Tests of a method the adapter lacks are skipped, saying which. Sync and
async methods both work.

The tests are ``async`` and run under anyio's pytest plugin (installed with ``anyio``), on
asyncio; define an ``anyio_backend`` fixture to run them on trio too. Set
``keeps_custom_keys = True`` when your adapter stores keys that are not standard and
gives them back, and ``user_defaults`` to what it adds to every new user (the defaults of
your user table's extra columns).

This is the part of :mod:`sansio_auth.testing` that does IO (through the adapter it tests):
it imports ``anyio`` (for the races) and ``pytest``.
"""

from __future__ import annotations

from ._adapter_accounts import AccountCases
from ._adapter_cases import CoreCases
from ._adapter_hardening import HardeningCases
from ._adapter_kit import NOW, Records, call, race
from ._adapter_own import OwnSessionCases
from ._adapter_passkeys import MoreCases

__all__ = ["NOW", "AdapterSuite", "Records", "call", "race"]


class AdapterSuite(CoreCases, MoreCases, AccountCases, OwnSessionCases, HardeningCases):
    """The whole suite: subclass it as ``Test...`` with a ``make_adapter``."""
