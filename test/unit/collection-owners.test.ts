import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CollectionOwners, type CollectionName } from '../../core/index.js';

/**
 * One owner per collection (core/collections.ts, `CollectionOwners`): a store call typed with a
 * record type (`store.get<T>(Collections.x, …)`, `pageOf<T>(store, Collections.x, …)`) outside
 * the collection's owner must take `T` from the owner's index, and inside it `T` must be one
 * the owner exports, never a private copy of the fields one file wants, whether declared
 * (`interface KeyRecord`) or written in the call (`Doc & { spent_usd?: number }`). A bare
 * `Doc` (no fields assumed) is always allowed. There are no exceptions: a component below the
 * owner, which cannot import it, reads through a port the owner answers (billing's
 * `BilledAccounts` and `BilledWork`, docs/architecture.md).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The product's top-level folders: those holding TypeScript, but for tests, benchmarks, examples and the browser console. */
const COMPONENTS = readdirSync(ROOT, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !['test', 'bench', 'examples', 'console', 'node_modules', 'dist'].includes(e.name))
  .filter((e) => readdirSync(path.join(ROOT, e.name)).some((f) => f.endsWith('.ts')))
  .map((e) => e.name);
const WRAPPERS = new Set(['Pick', 'Omit', 'Partial', 'Readonly', 'Required']);
/** The end of a typed store call: `>(` then the collection, after the store for `pageOf(store, …)`. */
const CALL_END = />\(\s*(?:[\w.#]+,\s*)?Collections\.(\w+)\b/g;

/**
 * The type arguments of the generic call whose `>` is at `close`: walks back to the `<` that
 * opens them (nested `<…>` counted, so `Partial<Doc & { a: X<b> }>` is whole); null when the
 * `>` closes no call (an arrow, a comparison).
 */
function typeArgumentsBefore(text: string, close: number): string | null {
  let depth = 0;
  let braces = 0;
  for (let i = close; i >= 0; i--) {
    const c = text[i];
    if (c === '}') braces++;
    else if (c === '{' && --braces < 0) return null;
    else if (braces > 0) continue;
    else if (c === '>' && text[i - 1] !== '=') depth++;
    else if (c === '<' && --depth === 0) return /\w/.test(text[i - 1] ?? '') ? text.slice(i + 1, close) : null;
    else if (c === ';' || c === ')') return null;
  }
  return null;
}

/**
 * The typed store calls that break the rule, as `file: T for Collections.x (owner)`. Relative
 * imports tell where a type comes from: `../<owner>/index.js` (at any depth) is the owner's door.
 * `T` is one named record type, maybe in `Partial<…>`, `Pick<…>` and the like; a type written
 * in the call (`Doc & { spent_usd?: number }`, `{ secret: string }`) is a private copy too,
 * so only a bare `Doc` goes without an owner's type.
 */
export function ownerViolations(files: Record<string, string>, owners: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    const component = file.split('/')[0]!;
    for (const m of text.matchAll(CALL_END)) {
      const collection = m[1]!;
      const owner = owners[collection];
      if (!owner) continue;
      const args = typeArgumentsBefore(text, m.index);
      if (args === null) continue;
      const written = args
        .replace(/'[^']*'|"[^"]*"/g, "''")
        .replace(/\s+/g, ' ')
        .trim();
      const where = (type: string) => `${file}: ${type} for Collections.${collection} (${owner})`;
      if (/[{&|]/.test(written)) {
        found.push(where(written));
        continue;
      }
      let name = '';
      for (const t of written.matchAll(/\b[A-Za-z_]\w*\b/g))
        if (!WRAPPERS.has(t[0])) {
          name = t[0];
          break;
        }
      if (!name || name === 'Doc') continue;
      if (component !== owner) {
        const fromOwner = new RegExp(
          `import[^;]*\\b${name}\\b[^;]*from '(?:\\.\\./)+${owner.replace('-', '\\-')}/index\\.js'`,
        );
        if (!fromOwner.test(text)) found.push(where(name));
      } else if (new RegExp(`^(?:interface|type) ${name}\\b`, 'm').test(text)) {
        found.push(where(name));
      }
    }
  }
  return [...new Set(found)].sort();
}

function productFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'apps') walk(rel);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        files[rel] = readFileSync(path.join(ROOT, rel), 'utf8');
      }
    }
  };
  for (const c of COMPONENTS) walk(c);
  return files;
}

describe('one owner per collection', () => {
  it('names an owner for every collection', () => {
    const owners = CollectionOwners as Record<CollectionName, string>;
    for (const [name, owner] of Object.entries(owners))
      expect(COMPONENTS, `${name} is owned by ${owner}`).to.include(owner);
  });

  it('reads every collection through its owner’s record type', () => {
    expect(ownerViolations(productFiles(), CollectionOwners)).to.deep.equal([]);
  });

  it('refuses a private record type in another component, and a private copy in the owner', () => {
    const owners = { apiKeys: 'accounts', sessions: 'accounts' };
    const found = ownerViolations(
      {
        'gateway/auth.ts':
          'interface KeyRecord extends Doc { hash: string }\nconst k = await store.findOne<KeyRecord>(Collections.apiKeys, { prefix });\n',
        'gateway/watch.ts':
          "import { readSessions, type SessionDoc } from '../accounts/index.js';\nconst s = await store.get<SessionDoc>(Collections.sessions, id);\nconst d = await store.get<Doc>(Collections.sessions, id);\n",
        'accounts/resolver.ts':
          'interface SessionRecord extends Doc { user_id: string }\nconst s = await store.find<SessionRecord>(\n  Collections.sessions,\n  {},\n);\n',
        'accounts/keys.ts':
          'export interface ApiKeyDoc extends Doc { hash: string }\nconst p = await pageOf<ApiKeyDoc>(store, Collections.apiKeys, {});\n',
      },
      owners,
    );
    expect(found).to.deep.equal([
      'accounts/resolver.ts: SessionRecord for Collections.sessions (accounts)',
      'gateway/auth.ts: KeyRecord for Collections.apiKeys (accounts)',
    ]);
  });

  it('refuses a record type written in the call, in any component, wrapped or over several lines', () => {
    const owners = { jobs: 'scheduler', sessions: 'accounts' };
    const found = ownerViolations(
      {
        'billing/usage.ts':
          'const jobs = await store.find<Doc & { kind?: string; spent_usd?: unknown }>(Collections.jobs, inMonth);\n',
        'accounts/links.ts': [
          "import type { SessionDoc } from './sessions.js';",
          'await store.update<Partial<Doc & {',
          '  revoked_at: string | null;',
          '}>>(Collections.sessions, id, { revoked_at: now });',
          'const s = await store.find<{ _id: string; user_id: string }>(',
          '  Collections.sessions,',
          '  {},',
          ');',
          'const ok = await store.find<Partial<SessionDoc>>(Collections.sessions, {});',
          'const bare = await store.find<Doc>(Collections.jobs, {});',
        ].join('\n'),
      },
      owners,
    );
    expect(found).to.deep.equal([
      'accounts/links.ts: Partial<Doc & { revoked_at: string | null; }> for Collections.sessions (accounts)',
      'accounts/links.ts: { _id: string; user_id: string } for Collections.sessions (accounts)',
      'billing/usage.ts: Doc & { kind?: string; spent_usd?: unknown } for Collections.jobs (scheduler)',
    ]);
  });
});
