// A real OpenID Provider for the end-to-end tests: the `oidc-provider` package, configured
// from a JSON file written by tests/oidc_op/provider.py.
//
//   node server.mjs <config.json>
//
// It listens on 127.0.0.1 (port from the config, 0 for any free one), and prints one JSON
// line {"issuer": ...} once it answers. devInteractions are on: the login and consent pages
// are plain HTML forms that an HTTP client can submit.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

// stdout carries only the ready line (nobody reads it afterwards); notices go to stderr.
const ready = (line) => process.stdout.write(`${line}\n`);
// With `ledger` on, every token-endpoint answer is one stderr line `ledger {...}`: the grant
// type, the refresh token presented and the one issued (their digests, never the tokens),
// the error if refused, and the value of the request header `ledger_header` (who asked).
const digest = (value) => createHash('sha256').update(String(value)).digest('hex').slice(0, 16);
console.log = console.error;
console.info = console.error;

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { default: Provider } = await import(pathToFileURL(config.module).href);

function account(id) {
  const claims = config.accounts[id] ?? {
    email: `${id}@example.test`, email_verified: false, name: id,
  };
  return {
    accountId: id,
    async claims() {
      return { sub: id, ...claims };
    },
  };
}

let handler = (req, res) => {
  res.statusCode = 503;
  res.end();
};
const server = createServer((req, res) => handler(req, res));

server.listen(config.port, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: config.clients,
    jwks: { keys: config.jwks },
    cookies: { keys: config.cookie_keys },
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'picture', 'preferred_username'],
    },
    conformIdTokenClaims: config.conform_id_token_claims,
    responseTypes: ['code'],
    pkce: { required: (ctx, client) => client.clientAuthMethod === 'none' },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      // refresh-token rotation, RP-initiated and back-channel logout (issue 12)
      rpInitiatedLogout: { enabled: true },
      backchannelLogout: { enabled: true },
    },
    // every refresh-token grant returns a new refresh token and consumes the old one (its
    // reuse revokes the grant, as strict OPs do)
    rotateRefreshToken: true,
    // the test apps listen on 127.0.0.1, which the OP's SSRF guard refuses to call: the
    // back-channel logout requests go out without it (this OP only ever runs on loopback)
    fetch: (url, options) => {
      delete options.dispatcher;
      return globalThis.fetch(url, options);
    },
    ...(config.ttl ? { ttl: config.ttl } : {}),
    findAccount: (ctx, id) => account(id),
  });
  provider.on('server_error', (ctx, error) => console.error('server_error', error));
  if (config.ledger) {
    const entry = (ctx, fields) => {
      const { grant_type: grant, refresh_token: presented } = ctx.oidc.params ?? {};
      const header = config.ledger_header ? ctx.get(config.ledger_header) : '';
      console.error('ledger', JSON.stringify({
        at: Date.now() / 1000,
        grant,
        presented: presented ? digest(presented) : null,
        by: header || null,
        ...fields,
      }));
    };
    provider.on('grant.success', (ctx) => {
      const issued = ctx.oidc.entities.RefreshToken;
      entry(ctx, { issued: issued ? digest(issued.jti) : null, grant_id: issued?.grantId ?? null });
    });
    provider.on('grant.error', (ctx, error) => entry(ctx, { error: error.message }));
    provider.on('grant.revoked', (ctx, grantId) => console.error(
      'ledger', JSON.stringify({ at: Date.now() / 1000, revoked: grantId }),
    ));
  }
  provider.on('backchannel.success', (ctx, client) => console.error(
    'backchannel.success', client.clientId,
  ));
  provider.on('backchannel.error', (ctx, error, client) => console.error(
    'backchannel.error', client.clientId, error.message, String(error.cause),
  ));
  handler = provider.callback();
  ready(JSON.stringify({ issuer }));
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
