// A tiny HTTP router and JSON-file store for the catalog services. Plain Node.js, no
// dependencies, so a service runs in any sandbox as is.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';

const MAX_BODY = 1024 * 1024;

export class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Throws an HTTP error answer `{error: code, message}`. */
export function fail(status, code, message) {
  throw new HttpError(status, code, message);
}

/**
 * Loads the state file (or starts from `initial`). `save()` writes a temporary file and
 * renames it over the old one, so a crash never leaves half a file and a restart sees
 * the last saved state. `reset()` puts the store back to `initial` with no file, exactly as
 * a first start finds it (handlers hold `state` itself, so it is refilled in place).
 */
export function openStore(file, initial) {
  mkdirSync(dirname(file), { recursive: true });
  const state = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : structuredClone(initial);
  return {
    state,
    save() {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(state, null, 1));
      renameSync(tmp, file);
    },
    reset() {
      for (const key of Object.keys(state)) delete state[key];
      Object.assign(state, structuredClone(initial));
      rmSync(file, { force: true });
    },
  };
}

/**
 * The next id for `prefix`: deterministic (a counter kept in the state, hashed with the
 * service's salt) so replays on fresh data give the same ids, yet not guessable from
 * outside the way `o_1, o_2` would be.
 */
export function nextId(state, prefix, salt) {
  state.counters ??= {};
  const n = (state.counters[prefix] = (state.counters[prefix] ?? 0) + 1);
  return `${prefix}_${createHash('sha256').update(`${salt}:${prefix}:${n}`).digest('hex').slice(0, 10)}`;
}

/** The next value of a plain counter (human-facing numbers such as order numbers). */
export function nextNumber(state, name, start) {
  state.counters ??= {};
  state.counters[name] = (state.counters[name] ?? start - 1) + 1;
  return state.counters[name];
}

// --- argument checks: each throws a 400 naming the field ---------------------------

export function str(obj, key, { required = true, allowed } = {}) {
  const v = obj?.[key];
  if (v === undefined || v === null || v === '') {
    if (required) fail(400, 'missing_field', `${key} is required`);
    return undefined;
  }
  if (typeof v !== 'string') fail(400, 'bad_field', `${key} must be a string`);
  if (allowed && !allowed.includes(v)) fail(400, 'bad_field', `${key} must be one of ${allowed.join(', ')}`);
  return v;
}

export function num(obj, key, { required = true, min } = {}) {
  const v = obj?.[key];
  if (v === undefined || v === null || v === '') {
    if (required) fail(400, 'missing_field', `${key} is required`);
    return undefined;
  }
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) fail(400, 'bad_field', `${key} must be a number`);
  if (min !== undefined && n < min) fail(400, 'bad_field', `${key} must be at least ${min}`);
  return n;
}

export function date(obj, key, { required = true } = {}) {
  const v = str(obj, key, { required });
  if (v !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(v)) fail(400, 'bad_field', `${key} must be a date YYYY-MM-DD`);
  return v;
}

/** Days from date string a to date string b (UTC). */
export function daysBetween(a, b) {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

// --- HTTP -------------------------------------------------------------------------

function compile(routes) {
  return routes.map((r) => {
    const names = [];
    const pattern = r.path
      .split('/')
      .map((seg) => {
        const param = /^\{([^}]+)\}$/.exec(seg);
        if (!param) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(param[1]);
        return '([^/]+)';
      })
      .join('/');
    return { ...r, re: new RegExp(`^${pattern}$`), names };
  });
}

async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > MAX_BODY) fail(413, 'too_large', 'body too large');
    chunks.push(c);
  }
  if (size === 0) return {};
  let parsed;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    fail(400, 'bad_json', 'the body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) fail(400, 'bad_json', 'the body must be a JSON object');
  return parsed;
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Serves `routes` ({method, path: '/orders/{order_id}', handler({params, query, body})})
 * plus GET /health and POST /reset (the world.yaml `reset` path: back to the state of a
 * first start, for a worker reusing the sandbox) on `port`. A handler returns the body (200) or `{status, body}`;
 * after a successful non-GET handler the store is saved. Requests are handled one at a
 * time (handlers are synchronous), so no write interleaves with another.
 */
export function serve({ name, routes, store, port }) {
  const table = compile(routes);
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { status: 'ok', service: name });
      if (req.method === 'POST' && url.pathname === '/reset') {
        store.reset();
        return send(res, 200, { status: 'reset', service: name });
      }
      const hits = table.filter((r) => r.re.test(url.pathname));
      if (hits.length === 0) return send(res, 404, { error: 'no_route', message: `no route ${url.pathname}` });
      const route = hits.find((r) => r.method === req.method);
      if (!route) return send(res, 405, { error: 'method_not_allowed', message: `${req.method} is not allowed on ${url.pathname}` });
      const m = route.re.exec(url.pathname);
      const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
      const query = Object.fromEntries(url.searchParams.entries());
      const body = req.method === 'GET' || req.method === 'DELETE' ? {} : await readBody(req);
      const out = route.handler({ params, query, body });
      if (req.method !== 'GET') store.save();
      if (out && typeof out === 'object' && 'status' in out && 'body' in out) return send(res, out.status, out.body);
      return send(res, 200, out);
    } catch (err) {
      if (err instanceof HttpError) return send(res, err.status, { error: err.code, message: err.message });
      process.stderr.write(`${name}: ${err?.stack ?? err}\n`);
      return send(res, 500, { error: 'internal', message: 'internal error' });
    }
  });
  // one client (the episode's tool proxy, with a connection pool of its own) calls again
  // every few seconds: keep its connection open between calls
  server.keepAliveTimeout = 30_000;
  server.listen(port, '0.0.0.0', () => process.stderr.write(`${name} listening on ${port}\n`));
  const shutdown = () => server.close(() => process.exit(0));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return server;
}

/** Reads a required environment variable or exits with a clear message. */
export function env(name) {
  const v = process.env[name];
  if (!v) {
    process.stderr.write(`missing environment variable ${name}\n`);
    process.exit(2);
  }
  return v;
}
