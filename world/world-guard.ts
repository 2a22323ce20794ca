import { canonicalJson } from './content-hash.js';
import type { AppTool, Check, CustomerSpec, JsonObject, ScenarioTemplate, SeedStep, UnchangedCheck } from './types.js';

/**
 * The world guard (docs/scoring.md, Adversarial calibration): a scenario's checks name the
 * records its request concerns, so a write on another seeded record, or on a field no check
 * reads, went unseen. The compiler adds to every goal version of every template an
 * `unchanged` guard on each read of each record the seeds create (the world seed's and the
 * scenario's own), minus what that version's checks concern:
 *
 * - a record is read by the GETs under the path its POST created it at (`create_order`,
 *   POST `/orders` -> `get_order`, GET `/orders/{order_id}`, and sub-reads such as GET
 *   `/issues/{issue_id}/comments`) whose only required argument is that path's id;
 * - a read an author's own `unchanged` check already covers is left to that check (an author
 *   whose reference changes a field no check reads writes that check, with `ignore`);
 * - a read a `state` check of the version makes ignores the fields its matchers read (the
 *   first segment of each path: the whole address when a check reads its street; a
 *   matcher on the whole body leaves that read unguarded);
 * - in a notifications world the conversation is not state: on the record the customer
 *   writes to (`send_args` naming `${thread.id}`), the read of the reply tool's collection
 *   (GET `/issues/{issue_id}/comments` beside POST) is left to `told` checks, and the
 *   record's field of that name (`comments`, its count) is ignored. Other records' comments
 *   are guarded like any field;
 * - a list read that filters by a seeded record's id (the single read's parameter:
 *   `list_refunds` and `list_orders` by `order_id`, `customer_id`) and needs no other
 *   argument is guarded for **membership** (`members`: the ids of the records it holds, so a
 *   refund or a booking the world shows only there is seen; their fields are the single
 *   reads' to guard), unless the version's own checks read that list tool with any arguments
 *   (the request's writes show there: a booking in `list_appointments`);
 * - the unfiltered list of a collection the seeds create in (GET `/orders` beside POST
 *   `/orders`: `list_orders`, `search_issues`, `list_doctors`), needing no argument, is
 *   guarded for membership too (a new order, issue or user anywhere), unless the version's
 *   checks read it or its reference plan calls that POST (its request adds to it);
 * - in a notifications world no list of the collection the customer's messages are posted
 *   to (`send_tool`'s path) is guarded: the conversation adds to it.
 */
export const WORLD_GUARD_PREFIX = 'world guard: ';

/** One read of one seeded record: `args` names the record by its binding's `id`. */
export interface SeededRead {
  bind: string;
  tool: string;
  args: JsonObject;
  /** Fields ignored whatever the checks read (the conversation's). */
  ignore: string[];
  /** A list read filtered by the record's id (`list_refunds` by `order_id`): guards which records it holds. */
  list?: true;
  /** A list of the whole collection the seeds create in (`list_orders` with no filter): the POST that adds to it. */
  collection?: string;
}

/** Every read of every record `steps` create and bind (see the module comment). */
export function seededReads(tools: AppTool[], steps: SeedStep[], customer?: CustomerSpec): SeededRead[] {
  const reply =
    customer?.channel === 'notifications' ? tools.find((t) => t.name === customer.via.reply_tool) : undefined;
  // `/issues/{issue_id}/comments` -> the record's path `/issues/{issue_id}` and its field `comments`
  const talk = reply && /^(.*\/\{[^}]+\})\/([^/{}]+)$/.exec(reply.path);
  // the conversation's record: the one the customer's messages are sent to (`${thread.id}`)
  const threads = new Set(
    customer?.channel === 'notifications'
      ? Object.values(customer.via.send_args).flatMap((v) => {
          const m = typeof v === 'string' ? /^\$\{(\w+)\.id\}$/.exec(v) : null;
          return m ? [m[1]!] : [];
        })
      : [],
  );
  // the collection the customer's messages are posted to changes while the conversation goes on: no list of it
  const sends = tools.find((t) => customer?.channel === 'notifications' && t.name === customer.via.send_tool);
  const listed = (list: AppTool) =>
    list.kind === 'read' && list.parameters.required.length === 0 && list.path !== sends?.path;
  const out: SeededRead[] = [];
  for (const step of steps) {
    const create = tools.find((t) => t.name === step.tool);
    if (!create || create.method !== 'POST') continue;
    const collection = create.path.replace(/\/+$/, '');
    // the collection's own list, unfiltered: which records the world holds there
    for (const list of tools) {
      if (!listed(list) || list.service !== create.service || list.path.replace(/\/+$/, '') !== collection) continue;
      if (out.some((r) => r.tool === list.name && r.collection)) continue;
      out.push({ bind: '', tool: list.name, args: {}, ignore: [], list: true, collection: create.name });
    }
    if (!step.bind) continue;
    for (const read of tools) {
      if (read.kind !== 'read' || read.service !== create.service || read.args.path.length !== 1) continue;
      const param = read.args.path[0]!;
      const under = `${collection}/{${param}}`;
      if (read.path !== under && !read.path.startsWith(`${under}/`)) continue;
      if (read.parameters.required.length !== 1 || read.parameters.required[0] !== param) continue;
      const talks = talk && threads.has(step.bind) && read.service === reply!.service;
      if (talks && read.path === reply!.path) continue;
      const ignore = talks && read.path === talk[1] ? [talk[2]!] : [];
      out.push({ bind: step.bind, tool: read.name, args: { [param]: `\${${step.bind}.id}` }, ignore });
    }
    const single = out.find((r) => r.bind === step.bind && !r.list)?.args;
    const key = single && Object.keys(single)[0];
    if (!key) continue;
    for (const list of tools) {
      if (!listed(list) || list.args.path.length !== 0 || !list.args.query.includes(key)) continue;
      out.push({ bind: step.bind, tool: list.name, args: { [key]: `\${${step.bind}.id}` }, ignore: [], list: true });
    }
  }
  return out;
}

/**
 * The guards of one goal version whose own checks are `checks` and whose reference plan
 * calls `planTools`.
 */
export function worldGuards(reads: SeededRead[], checks: Check[], planTools: string[] = []): UnchangedCheck[] {
  const key = (tool: string, args: JsonObject) => canonicalJson({ tool, args });
  const own = new Set(checks.filter((c) => c.kind === 'unchanged').map((c) => key(c.tool, c.args)));
  const out: UnchangedCheck[] = [];
  // a list the version's own checks read is theirs: the request's writes show there
  const lists = new Set(checks.flatMap((c) => (c.kind === 'state' || c.kind === 'unchanged' ? [c.tool] : [])));
  for (const r of reads) {
    const k = key(r.tool, r.args);
    if (own.has(k)) continue;
    if (r.list) {
      if (lists.has(r.tool) || (r.collection && planTools.includes(r.collection))) continue;
      out.push({
        name: `${WORLD_GUARD_PREFIX}${r.tool}${r.collection ? '' : ` of ${r.bind}`} holds the same records`,
        kind: 'unchanged',
        role: 'guard',
        tool: r.tool,
        args: r.args,
        members: true,
        world_guard: true,
      });
      continue;
    }
    const fields = checks.flatMap((c) =>
      c.kind === 'state' && key(c.tool, c.args) === k ? c.expect.map((m) => (m.path ?? '').split('.')[0]!) : [],
    );
    if (fields.includes('')) continue;
    const ignore = [...new Set([...r.ignore, ...fields])].sort();
    out.push({
      name: `${WORLD_GUARD_PREFIX}${r.bind} as ${r.tool} reads it is unchanged`,
      kind: 'unchanged',
      role: 'guard',
      tool: r.tool,
      args: r.args,
      ...(ignore.length ? { ignore } : {}),
      world_guard: true,
    });
  }
  return out;
}

/** `t` with the world guard added to each goal version's checks (after its own). */
export function withWorldGuards(
  t: ScenarioTemplate,
  tools: AppTool[],
  worldSeed: SeedStep[],
  customer?: CustomerSpec,
): ScenarioTemplate {
  const reads = seededReads(tools, [...worldSeed, ...t.seed], customer);
  if (reads.length === 0) return t;
  const checks: ScenarioTemplate['checks'] = {};
  for (const [version, list] of Object.entries(t.checks)) {
    const authored = list.filter((c) => !(c.kind === 'unchanged' && c.world_guard));
    const plan = (t.reference_plan[version] ?? []).map((step) => step.tool);
    checks[version] = [...authored, ...worldGuards(reads, authored, plan)];
  }
  return { ...t, checks };
}
