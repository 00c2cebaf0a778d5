"""``@auth/core`` in Node, for the interop tests.

The fixture installs ``@auth/core@0.41.3`` with npm into
``~/.cache/sansio-auth/npm/authjs-core`` (reused when present; Node and npm come
from Debian, ``make system-deps``) and writes :data:`SCRIPT` into a temp dir. Each
call runs one operation in Node: JSON in on stdin, JSON out on stdout's last line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from npm_cache import node_json, require_npm

VERSION = "0.41.3"

SCRIPT = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const core = (file) =>
  import(pathToFileURL(`${process.env.AUTHJS_CORE}/node_modules/@auth/core/${file}`).href);
const { encode, decode, getToken } = await core("jwt.js");
const { Auth } = await core("index.js");
const { default: Credentials } = await core("providers/credentials.js");

// The same app as the Python side of the tests: Ada signs in with a password; `blob`
// makes the token big enough to be chunked; the session shows `sub` and the blob's size.
const ADA = {
  id: "42", name: "Ada", email: "ada@example.com", image: "https://example.com/ada.png",
};
const config = ({ secret, blob }) => ({
  secret,
  trustHost: true,
  basePath: "/auth",
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: async (c) => (c.username === "ada" && c.password === "lovelace" ? ADA : null),
    }),
  ],
  callbacks: {
    jwt: ({ token, user }) => (user && blob ? { ...token, blob } : token),
    session: ({ session, token }) =>
      ({ ...session, sub: token.sub, blobLength: token.blob?.length ?? 0 }),
  },
});
const pairs = (response) => response.headers.getSetCookie().map((line) => line.split(";")[0]);

const ops = {
  encode: ({ token, secret, salt }) => encode({ token, secret, salt }),
  decode: async ({ token, secret, salt }) => {
    try {
      return { claims: await decode({ token, secret, salt }) };
    } catch (error) {
      return { error: `${error.name}: ${error.message}` };
    }
  },
  signIn: async ({ origin, secret, blob, password }) => {
    const options = config({ secret, blob });
    const csrf = await Auth(new Request(`${origin}/auth/csrf`), options);
    const { csrfToken } = await csrf.json();
    const response = await Auth(
      new Request(`${origin}/auth/callback/credentials`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: pairs(csrf).join("; "),
        },
        body: new URLSearchParams({ csrfToken, username: "ada", password }),
      }),
      options,
    );
    const location = response.headers.get("location");
    return { status: response.status, location, cookies: pairs(response) };
  },
  getToken: async ({ secret, headers, raw, secureCookie }) => {
    const req = new Request("http://127.0.0.1:3000/api/things", { headers });
    return { token: await getToken({ req, secret, raw, secureCookie }) };
  },
  session: async ({ origin, secret, cookie }) => {
    const request = new Request(`${origin}/auth/session`, { headers: { cookie } });
    const response = await Auth(request, config({ secret }));
    return { status: response.status, body: await response.json(), cookies: pairs(response) };
  },
};

const input = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write("\n" + JSON.stringify(await ops[input.op](input)) + "\n");
"""


class AuthJS:
    """Runs :data:`SCRIPT` operations in Node against the installed ``@auth/core``."""

    def __init__(self, script: Path, prefix: Path) -> None:
        self.script = script
        self.prefix = prefix

    def __call__(self, op: str, **payload: Any) -> Any:
        """The JSON result of operation ``op`` (``encode``, ``decode``, ``getToken``, ``signIn``,
        ``session``)."""
        return node_json(self.script, {"op": op, **payload}, {"AUTHJS_CORE": str(self.prefix)})


@pytest.fixture(scope="session")
def authjs(tmp_path_factory: pytest.TempPathFactory) -> AuthJS:
    """``@auth/core`` in Node; skips only when Node or npm is not installed."""
    prefix = require_npm("authjs-core", {"@auth/core": VERSION})
    script = tmp_path_factory.mktemp("authjs") / "authjs.mjs"
    script.write_text(SCRIPT)
    return AuthJS(script, prefix)
