// retail: tau2-bench's retail shop (tools.mjs) over HTTP, one route per tau2 tool.
// The starting database ($RETAIL_DB, the prepared db.json of the source) is read once at
// start and never written; what the agents change is kept per record in $RETAIL_DATA
// (written atomically after each write, so a restart keeps it) and dropped by POST /reset.
// So seeding an episode costs nothing whatever the database's size.
// A tool that tau2 refuses answers 400 with the text tau2 shows its agent ("Error: ...");
// an answer tau2 gives as text (a user id, "Transfer successful") is a JSON string.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import { createRetail, ToolError } from './tools.mjs';

const MAX_BODY = 64 * 1024;
const ADDRESS = ['address1', 'address2', 'city', 'state', 'country', 'zip'];

/** Each tool: method, path, and its arguments (string, or `list` of strings). Path ids come first. */
const ROUTES = [
  { tool: 'find_user_id_by_email', method: 'GET', path: '/users/by-email', args: { email: 'string' } },
  {
    tool: 'find_user_id_by_name_zip',
    method: 'GET',
    path: '/users/by-name-zip',
    args: { first_name: 'string', last_name: 'string', zip: 'string' },
  },
  { tool: 'get_user_details', method: 'GET', path: '/users/{user_id}', args: { user_id: 'string' } },
  { tool: 'modify_user_address', method: 'POST', path: '/users/{user_id}/address', args: { user_id: 'string', ...strings(ADDRESS) } },
  { tool: 'get_order_details', method: 'GET', path: '/orders/{order_id}', args: { order_id: 'string' } },
  { tool: 'cancel_pending_order', method: 'POST', path: '/orders/{order_id}/cancel', args: { order_id: 'string', reason: 'string' } },
  {
    tool: 'modify_pending_order_address',
    method: 'POST',
    path: '/orders/{order_id}/address',
    args: { order_id: 'string', ...strings(ADDRESS) },
  },
  {
    tool: 'modify_pending_order_items',
    method: 'POST',
    path: '/orders/{order_id}/items',
    args: { order_id: 'string', item_ids: 'list', new_item_ids: 'list', payment_method_id: 'string' },
  },
  {
    tool: 'modify_pending_order_payment',
    method: 'POST',
    path: '/orders/{order_id}/payment',
    args: { order_id: 'string', payment_method_id: 'string' },
  },
  {
    tool: 'exchange_delivered_order_items',
    method: 'POST',
    path: '/orders/{order_id}/exchange',
    args: { order_id: 'string', item_ids: 'list', new_item_ids: 'list', payment_method_id: 'string' },
  },
  {
    tool: 'return_delivered_order_items',
    method: 'POST',
    path: '/orders/{order_id}/return',
    args: { order_id: 'string', item_ids: 'list', payment_method_id: 'string' },
  },
  { tool: 'list_all_product_types', method: 'GET', path: '/products', args: {} },
  { tool: 'get_product_details', method: 'GET', path: '/products/{product_id}', args: { product_id: 'string' } },
  { tool: 'get_item_details', method: 'GET', path: '/items/{item_id}', args: { item_id: 'string' } },
  { tool: 'calculate', method: 'GET', path: '/calculate', args: { expression: 'string' } },
  { tool: 'transfer_to_human_agents', method: 'POST', path: '/transfer', args: { summary: 'string' } },
].map((r) => ({ ...r, re: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`), names: [...r.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]) }));

function strings(names) {
  return Object.fromEntries(names.map((n) => [n, 'string']));
}

class BadRequest extends Error {}

/** The tool's arguments from path, query (GET) or body, each of its declared type; anything else is refused. */
function argumentsOf(route, params, query, body) {
  const given = { ...(route.method === 'GET' ? query : body), ...params };
  const out = {};
  for (const [name, type] of Object.entries(route.args)) {
    const v = given[name];
    if (v === undefined || v === null) throw new BadRequest(`Error: missing argument ${name}`);
    if (type === 'string' && typeof v !== 'string') throw new BadRequest(`Error: ${name} must be a string`);
    if (type === 'list' && !(Array.isArray(v) && v.length <= 100 && v.every((x) => typeof x === 'string')))
      throw new BadRequest(`Error: ${name} must be a list of strings`);
    out[name] = v;
  }
  const unknown = Object.keys(given).filter((k) => !(k in route.args));
  if (unknown.length > 0) throw new BadRequest(`Error: unexpected argument ${unknown.join(', ')}`);
  return out;
}

async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > MAX_BODY) throw new BadRequest('Error: the body is too large');
    chunks.push(c);
  }
  if (size === 0) return {};
  let parsed;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('Error: the body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadRequest('Error: the body must be a JSON object');
  return parsed;
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function saveAtomically(file, value) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, file);
}

function main() {
  const need = (name) => process.env[name] || (process.stderr.write(`missing environment variable ${name}\n`), process.exit(2));
  const dataFile = need('RETAIL_DATA');
  const db = JSON.parse(readFileSync(need('RETAIL_DB'), 'utf8'));
  mkdirSync(dirname(dataFile), { recursive: true });
  const shop = createRetail(db, existsSync(dataFile) ? JSON.parse(readFileSync(dataFile, 'utf8')) : {});

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { status: 'ok', service: 'retail' });
      if (req.method === 'POST' && url.pathname === '/reset') {
        shop.reset();
        rmSync(dataFile, { force: true });
        return send(res, 200, { status: 'reset', service: 'retail' });
      }
      // not a tau2 tool: what the checks read (no role is offered it)
      if (req.method === 'GET' && url.pathname === '/changes') return send(res, 200, { changes: shop.changes() });
      const hits = ROUTES.filter((r) => r.re.test(url.pathname));
      const route = hits.find((r) => r.method === req.method);
      if (!route) return send(res, hits.length ? 405 : 404, `Error: no tool at ${req.method} ${url.pathname}`);
      const m = route.re.exec(url.pathname);
      let params;
      try {
        params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
      } catch {
        throw new BadRequest('Error: the path is not valid percent-encoding');
      }
      const query = Object.fromEntries(url.searchParams.entries());
      const body = req.method === 'GET' ? {} : await readBody(req);
      const out = shop.tools[route.tool](argumentsOf(route, params, query, body));
      if (route.method !== 'GET') saveAtomically(dataFile, shop.touched());
      return send(res, 200, out);
    } catch (err) {
      if (err instanceof ToolError) return send(res, 400, `Error: ${err.message}`);
      if (err instanceof BadRequest) return send(res, 400, err.message);
      process.stderr.write(`retail: ${err?.stack ?? err}\n`);
      return send(res, 500, 'Error: internal error');
    }
  });
  // the episode's tool proxy calls again every few seconds over one connection: keep it
  server.keepAliveTimeout = 30_000;
  server.listen(Number(need('PORT')), '0.0.0.0', () => process.stderr.write(`retail listening on ${server.address().port}\n`));
  const shutdown = () => server.close(() => process.exit(0));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main();
