"""``@auth/core`` with its ``Passkey`` provider (and ``@simplewebauthn/server``) in Node.

Installed once with npm into ``~/.cache/sansio-auth/npm/authjs-webauthn``. Each call runs
one request through Auth.js on an adapter over plain JSON tables, passed in and returned
(``db``), so that both sides can share one database.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sansio_auth.testing import SECRET
from tests.interop.conftest import CACHE, VERSION

PACKAGES = (f"@auth/core@{VERSION}", "@simplewebauthn/server@9.0.3")
PACKAGE_DIR = CACHE / "authjs-webauthn"

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


def _installed() -> bool:
    manifest = PACKAGE_DIR / "node_modules" / "@simplewebauthn" / "server" / "package.json"
    return manifest.exists() and json.loads(manifest.read_text()).get("version") == "9.0.3"


def _install() -> None:
    PACKAGE_DIR.mkdir(parents=True, exist_ok=True)
    with (CACHE / "authjs-webauthn.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time across test sessions
        if _installed():
            return
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(PACKAGE_DIR),
             *PACKAGES],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
    assert _installed()


def empty_db() -> dict[str, list[dict[str, Any]]]:
    return {"users": [], "accounts": [], "sessions": [], "authenticators": []}


class AuthJSPasskeys:
    """One request through Auth.js with ``Passkey``: ``(url, secret, db, method, body, cookie)``
    in, ``{"status", "location", "body", "cookies", "db"}`` out."""

    def __init__(self, script: Path) -> None:
        self.script = script

    def __call__(self, url: str, **payload: Any) -> Any:
        payload.setdefault("db", empty_db())
        payload.setdefault("secret", SECRET)
        done = subprocess.run(
            ["node", str(self.script)],
            input=json.dumps({"url": url, **payload}).encode(),
            capture_output=True,
            timeout=60,
            env={**os.environ, "AUTHJS_WEBAUTHN": str(PACKAGE_DIR)},
        )
        if done.returncode != 0:
            raise RuntimeError(f"node failed:\n{done.stderr.decode(errors='replace')}")
        return json.loads(done.stdout.decode().strip().splitlines()[-1])


@pytest.fixture(scope="session")
def authjs_passkeys(tmp_path_factory: pytest.TempPathFactory) -> AuthJSPasskeys:
    """Auth.js's passkeys in Node; skips only when Node or npm is not installed."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (run `make system-deps`)")
    if not _installed():
        try:
            _install()
        except subprocess.CalledProcessError as err:
            pytest.fail(f"npm could not install {PACKAGES}:\n{err.stderr.decode()}")
    script = tmp_path_factory.mktemp("authjs-webauthn") / "webauthn.mjs"
    script.write_text(SCRIPT)
    return AuthJSPasskeys(script)
