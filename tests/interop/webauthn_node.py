"""``@auth/core`` with its ``Passkey`` provider (and ``@simplewebauthn/server``) in Node.

Installed once with npm into ``~/.cache/sansio-auth/npm/authjs-webauthn``. Each call runs
one request through Auth.js on an adapter over plain JSON tables, passed in and returned
(``db``), so that both sides can share one database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from npm_cache import node_json, require_npm

from sansio_auth.testing import SECRET
from tests.interop.conftest import VERSION

PACKAGES = {"@auth/core": VERSION, "@simplewebauthn/server": "9.0.3"}

SCRIPT = r"""import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const core = (file) =>
  import(pathToFileURL(`${process.env.AUTHJS_WEBAUTHN}/node_modules/@auth/core/${file}`).href);
const { Auth } = await core("index.js");
const { default: Passkey } = await core("providers/passkey.js");

// An adapter over plain JSON tables that the Python side passes in and reads back.
const adapterOf = (db) => ({
  createUser: async (user) => {
    const created = { ...user, id: user.id ?? `js-${db.users.length + 1}` };
    db.users.push(created);
    return created;
  },
  getUser: async (id) => db.users.find((u) => u.id === id) ?? null,
  getUserByEmail: async (email) => db.users.find((u) => u.email === email) ?? null,
  getUserByAccount: async ({ provider, providerAccountId }) => {
    const account = db.accounts.find(
      (a) => a.provider === provider && a.providerAccountId === providerAccountId);
    return account ? db.users.find((u) => u.id === account.userId) ?? null : null;
  },
  linkAccount: async (account) => { db.accounts.push(account); return account; },
  getAccount: async (providerAccountId, provider) =>
    db.accounts.find((a) => a.provider === provider && a.providerAccountId === providerAccountId)
      ?? null,
  createSession: async (session) => { db.sessions.push(session); return session; },
  getSessionAndUser: async (sessionToken) => {
    const session = db.sessions.find((s) => s.sessionToken === sessionToken);
    return session ? { session, user: db.users.find((u) => u.id === session.userId) } : null;
  },
  updateSession: async () => null,
  deleteSession: async () => null,
  updateUser: async (user) => user,
  getAuthenticator: async (id) => db.authenticators.find((a) => a.credentialID === id) ?? null,
  createAuthenticator: async (a) => { db.authenticators.push(a); return a; },
  listAuthenticatorsByUserId: async (userId) =>
    db.authenticators.filter((a) => a.userId === userId),
  updateAuthenticatorCounter: async (id, counter) => {
    const found = db.authenticators.find((a) => a.credentialID === id);
    found.counter = counter;
    return found;
  },
});

const run = async ({ url, secret, db, method, body, cookie }) => {
  const options = {
    secret, trustHost: true, basePath: "/auth", providers: [Passkey],
    adapter: adapterOf(db), experimental: { enableWebAuthn: true },
    session: { strategy: "jwt" }, logger: { warn: () => {}, error: () => {}, debug: () => {} },
  };
  const init = { method: method ?? "GET", headers: { cookie: cookie ?? "" } };
  if (body) {
    init.headers["content-type"] = "application/x-www-form-urlencoded";
    init.body = new URLSearchParams(body);
  }
  const response = await Auth(new Request(url, init), options);
  const text = await response.text();
  return {
    status: response.status,
    location: response.headers.get("location"),
    body: response.headers.get("content-type") === "application/json" ? JSON.parse(text) : text,
    cookies: response.headers.getSetCookie().map((line) => line.split(";")[0]),
    db,
  };
};

const input = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write("\n" + JSON.stringify(await run(input)) + "\n");
"""


def empty_db() -> dict[str, list[dict[str, Any]]]:
    return {"users": [], "accounts": [], "sessions": [], "authenticators": []}


class AuthJSPasskeys:
    """One request through Auth.js with ``Passkey``: ``(url, secret, db, method, body, cookie)``
    in, ``{"status", "location", "body", "cookies", "db"}`` out."""

    def __init__(self, script: Path, prefix: Path) -> None:
        self.script = script
        self.prefix = prefix

    def __call__(self, url: str, **payload: Any) -> Any:
        payload.setdefault("db", empty_db())
        payload.setdefault("secret", SECRET)
        env = {"AUTHJS_WEBAUTHN": str(self.prefix)}
        return node_json(self.script, {"url": url, **payload}, env)


@pytest.fixture(scope="session")
def authjs_passkeys(tmp_path_factory: pytest.TempPathFactory) -> AuthJSPasskeys:
    """Auth.js's passkeys in Node; skips only when Node or npm is not installed."""
    prefix = require_npm("authjs-webauthn", PACKAGES)
    script = tmp_path_factory.mktemp("authjs-webauthn") / "webauthn.mjs"
    script.write_text(SCRIPT)
    return AuthJSPasskeys(script, prefix)
