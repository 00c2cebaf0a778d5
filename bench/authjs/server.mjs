// The Auth.js peer of `make bench`: @auth/core behind node's own HTTP server, configured as
// bench/app.py (one credentials provider, the same secret, JWT sessions) or, with
// DATABASE_URL, as bench/app.py's database app (@auth/pg-adapter, database sessions).
// Serves GET /auth/* (Auth.js's routes) and GET /bare (node's floor: no Auth.js at all).
// Environment: AUTHJS_ROOT (where npm installed the packages), PORT, AUTH_SECRET, DATABASE_URL.
import http from "node:http";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const modules = `${process.env.AUTHJS_ROOT}/node_modules`;
const load = async (path) => import(pathToFileURL(`${modules}/${path}`).href);
const { Auth } = await load("@auth/core/index.js");
const { default: Credentials } = await load("@auth/core/providers/credentials.js");
const { default: GitHub } = await load("@auth/core/providers/github.js");

const base = { secret: process.env.AUTH_SECRET, trustHost: true, basePath: "/auth" };
const jwtConfig = {
  ...base,
  providers: [
    Credentials({ credentials: { username: {}, password: {} }, authorize: async () => null }),
  ],
};
const databaseConfig = async (url) => {
  const pg = createRequire(`${modules}/`)("pg");
  const { default: PostgresAdapter } = await load("@auth/pg-adapter/index.js");
  return {
    ...base,
    adapter: PostgresAdapter(new pg.Pool({ connectionString: url })),
    providers: [GitHub({ clientId: "bench", clientSecret: "bench" })],
    session: { strategy: "database" },
  };
};
const config = process.env.DATABASE_URL ? await databaseConfig(process.env.DATABASE_URL) : jwtConfig;

const BARE = Buffer.from(JSON.stringify({ ok: true }));

async function handle(req, res) {
  if (req.method !== "GET") {
    res.writeHead(405).end();
    return;
  }
  if (req.url === "/bare") {
    res
      .writeHead(200, { "content-type": "application/json", "content-length": BARE.length })
      .end(BARE);
    return;
  }
  const request = new Request(`http://${req.headers.host}${req.url}`, { headers: req.headers });
  const response = await Auth(request, config);
  const headers = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  const body = Buffer.from(await response.arrayBuffer());
  headers["content-length"] = body.length;
  res.writeHead(response.status, headers).end(body);
}

http
  .createServer((req, res) =>
    handle(req, res).catch((error) => {
      console.error(error);
      res.writeHead(500).end();
    }),
  )
  .listen(Number(process.env.PORT), "127.0.0.1");
