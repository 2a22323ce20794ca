import type { Command } from 'commander';
import { seg, type ApiClient } from '../api-client.js';

/**
 * Ids given by a unique prefix, as git takes a commit's: tables print ids shortened
 * (output.ts, uniquePrefixes), and every command taking an id takes such a prefix too. A
 * prefix is looked up in the list that holds every id of its kind in the caller's project;
 * more than one match or none is an error naming what was found.
 */
interface IdKind {
  noun: string;
  /** Every id of this kind the caller can name. */
  ids: (client: ApiClient) => Promise<string[]>;
}

type WithId = { id: string };
/** The ids of a list's items (runs list theirs as `run_id`). */
const idsOf = async (client: ApiClient, path: string): Promise<string[]> =>
  (await client.list<{ id?: string; run_id?: string }>(path)).flatMap((x) => x.id ?? x.run_id ?? []);

const worldVersionIds = async (client: ApiClient): Promise<string[]> =>
  (await client.list<{ versions?: WithId[] }>('/v1/worlds')).flatMap((w) => (w.versions ?? []).map((v) => v.id));

/** Lists every list of `parents`' children, a few at a time. */
async function childIds(client: ApiClient, parents: string[], path: (parent: string) => string): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < parents.length; i += 8)
    for (const ids of await Promise.all(parents.slice(i, i + 8).map((p) => idsOf(client, path(p))))) out.push(...ids);
  return out;
}

/** The kinds of id by their type prefix (`run_...`). */
const KINDS: Readonly<Record<string, IdKind>> = {
  app: { noun: 'application', ids: (c) => idsOf(c, '/v1/applications') },
  job: { noun: 'job', ids: (c) => idsOf(c, '/v1/jobs') },
  wv: { noun: 'world version', ids: worldVersionIds },
  sc: {
    noun: 'scenario',
    ids: async (c) => childIds(c, await worldVersionIds(c), (wv) => `/v1/world-versions/${seg(wv)}/scenarios`),
  },
  prof: { noun: 'profile', ids: (c) => idsOf(c, '/v1/agent-profiles') },
  run: { noun: 'run', ids: (c) => idsOf(c, '/v1/runs') },
  ep: {
    noun: 'episode',
    ids: async (c) => childIds(c, await idsOf(c, '/v1/runs'), (run) => `/v1/runs/${seg(run)}/episodes`),
  },
  art: { noun: 'artifact', ids: (c) => idsOf(c, '/v1/artifacts') },
  key: { noun: 'API key', ids: (c) => idsOf(c, '/v1/api-keys') },
  usr: {
    noun: 'member',
    ids: async (c) => (await c.list<{ user_id: string }>('/v1/members')).map((m) => m.user_id),
  },
};

/** Whole ids: the type prefix and 32 hex digits (core/ids.ts). */
const WHOLE_HEX = 32;
/** Candidates an ambiguity names before "and N more". */
const NAMED = 6;

/**
 * The kind of id a command's argument or option takes, from the name its help gives it:
 * `<run_id>`, `<run_a>`, `[run_b]`, `<member>` (a user id or an e-mail address).
 */
function kindOfPlaceholder(name: string): string | null {
  if (name === 'member') return 'usr';
  const m = /^([a-z]+)_(?:id|a|b)$/.exec(name);
  return m && m[1]! in KINDS ? m[1]! : null;
}

/** A value that is a shortened id of `kind`: its type prefix and 1 to 31 hex digits. */
const isPrefixOf = (kind: string, value: unknown): value is string =>
  typeof value === 'string' && new RegExp(`^${kind}_[0-9a-f]{1,${WHOLE_HEX - 1}}$`).test(value);

/** The one id of `kind` that starts with `prefix`, or an error naming the candidates. */
export async function resolveIdPrefix(client: ApiClient, kind: string, prefix: string): Promise<string> {
  const k = KINDS[kind];
  if (!k) throw new Error(`unknown kind of id: ${kind}`);
  const found = [...new Set((await k.ids(client)).filter((id) => id.startsWith(prefix)))].sort();
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new Error(`no ${k.noun} of this project has an id starting with ${prefix}`);
  const named = found.slice(0, NAMED).join(', ');
  const more = found.length > NAMED ? ` and ${found.length - NAMED} more` : '';
  throw new Error(
    `${prefix} is ambiguous: ${found.length} ${k.noun}s have ids starting with it (${named}${more}); give more characters`,
  );
}

/**
 * A command's arguments with every shortened id resolved to the whole one: positional
 * arguments and options whose placeholder names an id (`<run_id>`, `--profile <prof_id>`),
 * including repeated options. `args` are commander's: the arguments, the options, the command.
 * Values that are not a shortened id (a whole id, an e-mail address) are left as they are.
 */
export async function resolveIdArgs(args: unknown[], client: () => ApiClient): Promise<unknown[]> {
  const cmd = args[args.length - 1] as Command;
  const out = [...args];
  const resolve = (kind: string | null, v: unknown) =>
    kind && isPrefixOf(kind, v) ? resolveIdPrefix(client(), kind, v) : Promise.resolve(v);
  const registered = cmd.registeredArguments;
  for (let i = 0; i < registered.length && i < args.length - 2; i++)
    out[i] = await resolve(kindOfPlaceholder(registered[i]!.name()), args[i]);
  const opts = args[args.length - 2] as Record<string, unknown>;
  for (const o of cmd.options) {
    const kind = kindOfPlaceholder(/[<[]([a-z_]+)[>\]]/.exec(o.flags)?.[1] ?? '');
    const name = o.attributeName();
    const v = opts[name];
    if (!kind || v === undefined) continue;
    opts[name] = Array.isArray(v) ? await Promise.all(v.map((x) => resolve(kind, x))) : await resolve(kind, v);
  }
  return out;
}
