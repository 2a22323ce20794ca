import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { ServiceError } from '../core/index.js';
import type { Check, JsonObject, PlanStep, Split } from './types.js';

/**
 * The importer of tau2-bench domains (docs/worlds.md, Importing a benchmark): a benchmark
 * whose tasks are data becomes an application source, one scenario template per task.
 * The domain's service (the shop whose tools behave as tau2's) is this project's own code,
 * taken from `serviceDir`; the tasks, the database, the split and the policy come from the
 * benchmark's folder.
 */

/** The one domain supported: its service files (relative to the source) and world name. */
const DOMAINS = {
  retail: {
    world: 'tau2-retail',
    files: ['retail/server.mjs', 'retail/tools.mjs', 'retail/openapi.yaml'],
    tools: [
      'find_user_id_by_email',
      'find_user_id_by_name_zip',
      'get_user_details',
      'get_order_details',
      'get_product_details',
      'get_item_details',
      'list_all_product_types',
      'cancel_pending_order',
      'modify_pending_order_address',
      'modify_pending_order_items',
      'modify_pending_order_payment',
      'modify_user_address',
      'exchange_delivered_order_items',
      'return_delivered_order_items',
      'transfer_to_human_agents',
      'calculate',
    ],
  },
} as const;
export type Tau2Domain = keyof typeof DOMAINS;
export const TAU2_DOMAINS = Object.keys(DOMAINS) as Tau2Domain[];

/**
 * The benchmark's files, copied into the source's `benchmark/` (LICENSE and SOURCE.md when
 * present); not `data/`, which .gitignore keeps for a service's state.
 */
const DATA_FILES = ['db.json', 'tasks.json', 'split_tasks.json', 'policy.md'];
const NOTICE_FILES = ['LICENSE', 'SOURCE.md', 'README.md'];

interface Tau2Action {
  action_id?: string;
  name: string;
  arguments: JsonObject;
}

interface Tau2Task {
  id: string;
  instructions: { task_instructions: string; reason_for_call: string; known_info: string; unknown_info: string };
  actions: Tau2Action[];
  communicate: string[];
  assertions: string[];
}

/** What the domain's tools.mjs exports (the service and the importer share it). */
interface ShopModule {
  createRetail(db: unknown): {
    tools: Record<string, (args: JsonObject) => unknown>;
    changes(): unknown[];
  };
  ToolError: new (message: string) => Error;
}

export interface Tau2ImportOptions {
  domain: string;
  /** The benchmark's folder: db.json, tasks.json, split_tasks.json, policy.md. */
  dataDir: string;
  /** Where the domain's service files are (the catalog's `apps/tau2-retail`). */
  serviceDir: string;
  /** The application source to write (may be `serviceDir` itself: the catalog is written in place). */
  outDir: string;
}

/**
 * A gold action tau2's tools refuse (an id that does not exist, an exchange of an order not
 * delivered): it changes nothing in tau2's replay either, so the reference plan leaves it out.
 */
export interface GoldFailure {
  task: string;
  action: string;
  error: string;
}

export interface Tau2ImportReport {
  world: string;
  out_dir: string;
  tasks: number;
  splits: Record<Split, number>;
  /** Tasks whose gold actions leave the database as it started. */
  unchanged_database: string[];
  gold_failures: GoldFailure[];
}

const bad = (file: string, message: string) => new ServiceError('bad_request', `${file}: ${message}`);

async function readJson(dir: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path.join(dir, file), 'utf8');
  } catch {
    throw bad(file, `not found in ${dir} (a tau2 domain folder holds ${DATA_FILES.join(', ')})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw bad(file, `not valid JSON: ${(err as Error).message}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** One task of tasks.json, checked: what the importer reads of it, or a clear refusal. */
function parseTask(raw: unknown, i: number, tools: readonly string[]): Tau2Task {
  const at = `tasks[${i}]`;
  if (!isObject(raw) || (typeof raw.id !== 'string' && typeof raw.id !== 'number'))
    throw bad('tasks.json', `${at} must be an object with an id`);
  const scenario = raw.user_scenario;
  const ins = isObject(scenario) ? scenario.instructions : undefined;
  if (!isObject(ins)) throw bad('tasks.json', `${at}.user_scenario.instructions must be an object`);
  const text = (k: string) => {
    const v = ins[k] ?? '';
    if (typeof v !== 'string') throw bad('tasks.json', `${at}.user_scenario.instructions.${k} must be text`);
    return v.trim();
  };
  const crit = isObject(raw.evaluation_criteria) ? raw.evaluation_criteria : {};
  const actions = (Array.isArray(crit.actions) ? crit.actions : []).map((a: unknown, k: number) => {
    if (!isObject(a) || typeof a.name !== 'string' || !isObject(a.arguments))
      throw bad('tasks.json', `${at}.evaluation_criteria.actions[${k}] must be {name, arguments}`);
    if (!tools.includes(a.name))
      throw bad('tasks.json', `${at}.evaluation_criteria.actions[${k}] names "${a.name}", not a tool of the domain`);
    return {
      action_id: typeof a.action_id === 'string' ? a.action_id : `${k}`,
      name: a.name,
      arguments: a.arguments as JsonObject,
    };
  });
  const list = (k: string) => {
    const v = crit[k] ?? [];
    if (!strings(v)) throw bad('tasks.json', `${at}.evaluation_criteria.${k} must be a list of text`);
    return v;
  };
  return {
    id: String(raw.id),
    instructions: {
      task_instructions: text('task_instructions'),
      reason_for_call: text('reason_for_call'),
      known_info: text('known_info'),
      unknown_info: text('unknown_info'),
    },
    actions,
    communicate: list('communicate_info'),
    assertions: list('nl_assertions'),
  };
}

/** The customer's reason for calling, told in the first person (tau2 writes it to the customer: "You ..."). */
export function firstPerson(text: string): string {
  const swaps: Array<[RegExp, string]> = [
    [/\bYou are\b/g, 'I am'],
    [/\byou are\b/g, 'I am'],
    [/\bYou're\b/g, "I'm"],
    [/\byou're\b/g, "I'm"],
    [/\b[Yy]ou'd\b/g, "I'd"],
    [/\b[Yy]ou've\b/g, "I've"],
    [/\b[Yy]ou'll\b/g, "I'll"],
    [/\b[Yy]ourself\b/g, 'myself'],
    [/\bYour\b/g, 'My'],
    [/\byour\b/g, 'my'],
    [/\bYou\b/g, 'I'],
    [/\byou\b/g, 'I'],
  ];
  return swaps.reduce((t, [re, to]) => t.replace(re, to), text);
}

/** The facts the scripted customer gives when asked: the identity the gold lookups use, and the order ids it knows. */
function factsOf(task: Tau2Task): Record<string, { value: string; ask: string[] }> {
  const facts: Record<string, { value: string; ask: string[] }> = {};
  for (const a of task.actions) {
    const g = a.arguments;
    if (a.name === 'find_user_id_by_email' && typeof g.email === 'string')
      facts.email = { value: g.email, ask: ['email', 'e-mail'] };
    if (a.name === 'find_user_id_by_name_zip') {
      if (typeof g.first_name === 'string' && typeof g.last_name === 'string')
        facts.name = { value: `${g.first_name} ${g.last_name}`, ask: ['name'] };
      if (typeof g.zip === 'string') facts.zip = { value: g.zip, ask: ['zip', 'postal'] };
    }
  }
  const known = `${task.instructions.known_info} ${task.instructions.reason_for_call}`;
  [...new Set(known.match(/#W\d+/g) ?? [])].forEach((id, k) => {
    facts[`order_${k + 1}`] = { value: id, ask: ['order id', 'order number'] };
  });
  return facts;
}

/** Template id of a task: `task-<id>` in the ids' alphabet ([a-z0-9-], no "--"). */
export const templateIdOf = (taskId: string): string =>
  `task-${
    taskId
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'x'
  }`;

/**
 * Turns a tau2 domain folder into an application source in `outDir`: the domain's service,
 * the benchmark's data (db.json is the world's starting database), world.yaml, policies.md
 * (tau2's policy.md) and one scenario template per task. Each task's gold actions are
 * replayed on the starting database with the service's own tools.mjs, and the record-level
 * difference they leave is the state the task's database check expects.
 */
export async function importTau2(opts: Tau2ImportOptions): Promise<Tau2ImportReport> {
  if (!(opts.domain in DOMAINS))
    throw new ServiceError('bad_request', `unknown tau2 domain "${opts.domain}": one of ${TAU2_DOMAINS.join(', ')}`);
  const domain = DOMAINS[opts.domain as Tau2Domain];
  const db = await readJson(opts.dataDir, 'db.json');
  if (!isObject(db) || !['products', 'users', 'orders'].every((t) => isObject(db[t])))
    throw bad('db.json', 'must hold the maps products, users and orders');
  const rawTasks = await readJson(opts.dataDir, 'tasks.json');
  if (!Array.isArray(rawTasks) || rawTasks.length === 0) throw bad('tasks.json', 'must be a non-empty list of tasks');
  const tasks = rawTasks.map((t, i) => parseTask(t, i, domain.tools));
  const ids = new Set<string>();
  for (const t of tasks) {
    const tid = templateIdOf(t.id);
    if (ids.has(tid)) throw bad('tasks.json', `two tasks map to the scenario id ${tid}`);
    ids.add(tid);
  }
  const split = await readJson(opts.dataDir, 'split_tasks.json');
  if (!isObject(split) || !strings(split.train ?? []) || !strings(split.test ?? []))
    throw bad('split_tasks.json', 'must be {train: [task ids], test: [task ids]}');
  const test = new Set(split.test as string[]);
  const train = new Set((split.train ?? []) as string[]);
  let policy: string;
  try {
    policy = await readFile(path.join(opts.dataDir, 'policy.md'), 'utf8');
  } catch {
    throw bad('policy.md', `not found in ${opts.dataDir}`);
  }

  const out = path.resolve(opts.outDir);
  await mkdir(path.join(out, 'benchmark'), { recursive: true });
  if (path.resolve(opts.serviceDir) !== out)
    for (const f of domain.files) await cp(path.join(opts.serviceDir, f), path.join(out, f), { recursive: true });
  if (path.resolve(opts.dataDir) !== path.join(out, 'benchmark')) {
    const present = new Set(await readdir(opts.dataDir));
    for (const f of [...DATA_FILES, ...NOTICE_FILES].filter((x) => present.has(x)))
      await cp(path.join(opts.dataDir, f), path.join(out, 'benchmark', f === 'README.md' ? 'SOURCE.md' : f));
  }
  const shop = (await import(pathToFileURL(path.join(out, 'retail/tools.mjs')).href)) as ShopModule;

  const report: Tau2ImportReport = {
    world: domain.world,
    out_dir: out,
    tasks: tasks.length,
    splits: { train: 0, dev: 0, holdout: 0 },
    unchanged_database: [],
    gold_failures: [],
  };
  await rm(path.join(out, 'scenarios'), { recursive: true, force: true });
  await mkdir(path.join(out, 'scenarios'));
  for (const task of tasks) {
    const world = shop.createRetail(db);
    const succeeded: Tau2Action[] = [];
    for (const a of task.actions) {
      try {
        world.tools[a.name]!(a.arguments);
        succeeded.push(a);
      } catch (err) {
        if (!(err instanceof shop.ToolError)) throw err;
        report.gold_failures.push({ task: task.id, action: a.action_id ?? a.name, error: `Error: ${err.message}` });
      }
    }
    const expected = world.changes();
    if (expected.length === 0) report.unchanged_database.push(task.id);
    const s: Split = test.has(task.id) ? 'holdout' : train.has(task.id) ? 'train' : 'dev';
    report.splits[s]++;
    const template = templateOf({ ...task, actions: succeeded }, s, expected);
    // a `${` would read as a reference to a variable when the template is compiled
    if (JSON.stringify(template).includes('${'))
      throw bad('tasks.json', `task ${task.id} holds "\${" in its texts or gold arguments`);
    await writeFile(
      path.join(out, 'scenarios', `${templateIdOf(task.id)}.yaml`),
      stringify(template, { lineWidth: 0 }),
    );
  }
  await writeFile(path.join(out, 'policies.md'), policy);
  await writeFile(path.join(out, 'world.yaml'), stringify(manifestOf(domain.world, domain.tools), { lineWidth: 100 }));
  return report;
}

/** The scenario template of one task (docs/worlds.md, Importing a benchmark, has the mapping). */
function templateOf(task: Tau2Task, split: Split, expected: unknown[]): Record<string, unknown> {
  const ins = task.instructions;
  const steps: PlanStep[] = task.actions.map((a) => ({ actor: 'agent', tool: a.name, args: a.arguments }));
  const told = task.communicate.map((v) => String(v));
  steps.push({
    actor: 'agent',
    tool: 'reply_to_customer',
    args: { text: told.length > 0 ? `Here is what you asked about: ${told.join('; ')}.` : 'That is all done for you.' },
  });
  steps.push({ actor: 'agent', tool: 'complete', args: { summary: `tau2 retail task ${task.id}` } });
  const checks: Check[] = [
    {
      name: "the database equals tau2's gold replay",
      kind: 'state',
      // nothing to change and nothing to tell: only this check can be progress (do-nothing passes it: withdrawn)
      role: expected.length > 0 || told.length === 0 ? 'progress' : 'guard',
      tool: 'get_database_changes',
      args: {},
      expect: [{ path: 'changes', equals: expected as JsonObject[] }],
    },
    ...told.map((v): Check => ({ name: `told the customer ${v}`, kind: 'told', contains: [v] })),
    // tau2 ends the conversation at a transfer, so one its gold does not make leaves the task
    // undone; here the conversation would go on, so the transfer itself is what fails
    ...(task.actions.some((a) => a.name === 'transfer_to_human_agents')
      ? []
      : [
          {
            name: 'no transfer to a human agent',
            kind: 'refused',
            tool: 'transfer_to_human_agents',
            where: {},
          } as Check,
        ]),
    ...task.assertions.map((rubric, k): Check => ({ name: `assertion ${k + 1}`, kind: 'policy', rubric })),
  ];
  const writes = task.actions.filter((a) => !a.name.startsWith('get_') && !a.name.startsWith('find_')).length;
  return {
    id: templateIdOf(task.id),
    title: `tau2 retail task ${task.id}: ${ins.reason_for_call.slice(0, 80)}${ins.reason_for_call.length > 80 ? '...' : ''}`,
    difficulty: task.actions.length <= 3 ? 1 : task.actions.length <= 7 ? 2 : 3,
    tags: writes === 0 ? ['find_ids', 'policy_refusal'] : ['find_ids'],
    split,
    persona: [
      ins.task_instructions,
      ins.known_info && `What you know: ${ins.known_info}`,
      ins.unknown_info && `What you do not know (never make it up): ${ins.unknown_info}`,
      'Give a detail only when the agent asks for it.',
    ]
      .filter(Boolean)
      .join('\n'),
    facts: factsOf(task),
    request: firstPerson(ins.reason_for_call),
    reference_plan: { 1: steps },
    checks: { 1: checks },
  };
}

/** world.yaml of an imported domain: its one service and one agent role holding every tau2 tool. */
function manifestOf(world: string, tools: readonly string[]): Record<string, unknown> {
  return {
    name: world,
    description:
      "tau2-bench's retail domain (Sierra Research, MIT licence, benchmark/LICENSE), imported by `crucible worlds import tau2`: " +
      "an online shop's customer service, one scenario per tau2 task, judged as tau2 judges it (docs/scoring.md, tau2-bench).",
    expand: 'all',
    services: [
      {
        name: 'retail',
        start: {
          command: ['node', 'retail/server.mjs'],
          env: { RETAIL_DB: 'benchmark/db.json', RETAIL_DATA: '{data}/retail.json' },
        },
        image: 'retail',
        port_env: 'PORT',
        health: '/health',
        reset: '/reset',
        openapi: 'retail/openapi.yaml',
      },
    ],
    roles: [
      {
        name: 'agent',
        instructions:
          'You are a customer service agent of an online retail shop. Help the customer with their orders, returns, ' +
          'exchanges and account through reply_to_customer and the tools, following the policy exactly. Authenticate ' +
          'the customer first (by e-mail, or by name and zip code), never guess ids, and before any change that the ' +
          'policy says needs it, list what you will do and get an explicit yes. Call complete when the conversation is over.',
        tools: [...tools, 'reply_to_customer'],
        complete: true,
      },
    ],
    customer: { channel: 'chat' },
    policies: 'policies.md',
    scenarios: 'scenarios/*.yaml',
  };
}
