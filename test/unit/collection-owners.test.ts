import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CollectionOwners, type CollectionName } from '../../core/index.js';

/**
 * One owner per collection (core/collections.ts, `CollectionOwners`): a store call typed with a
 * record type (`store.get<T>(Collections.x, …)`, `pageOf<T>(store, Collections.x, …)`) outside
 * the collection's owner must take `T` from the owner's index, and inside it `T` must be one
 * the owner exports, never a private copy of the fields one file wants. `Doc` (no fields
 * assumed) is always allowed. There are no exceptions: a component below the owner, which
 * cannot import it, reads through a port the owner answers (billing's `BilledAccounts`,
 * docs/architecture.md).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The product's top-level folders: those holding TypeScript, but for tests, benchmarks, examples and the browser console. */
const COMPONENTS = readdirSync(ROOT, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !['test', 'bench', 'examples', 'console', 'node_modules', 'dist'].includes(e.name))
  .filter((e) => readdirSync(path.join(ROOT, e.name)).some((f) => f.endsWith('.ts')))
  .map((e) => e.name);
const WRAPPERS = new Set(['Pick', 'Omit', 'Partial', 'Readonly', 'Required']);
const CALL = /\b\w+<([^;{}()]*?)>\(\s*(?:[\w.#]+,\s*)?Collections\.(\w+)\b/g;

/**
 * The typed store calls that break the rule, as `file: T for Collections.x (owner)`. Relative
 * imports tell where a type comes from: `../<owner>/index.js` (at any depth) is the owner's door.
 */
export function ownerViolations(files: Record<string, string>, owners: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    const component = file.split('/')[0]!;
    for (const m of text.matchAll(CALL)) {
      const collection = m[2]!;
      const owner = owners[collection];
      if (!owner) continue;
      const type = /\b[A-Za-z_]\w*\b/g;
      let name = '';
      for (const t of m[1]!.matchAll(type))
        if (!WRAPPERS.has(t[0])) {
          name = t[0];
          break;
        }
      if (!name || name === 'Doc') continue;
      const where = `${file}: ${name} for Collections.${collection} (${owner})`;
      if (component !== owner) {
        const fromOwner = new RegExp(
          `import[^;]*\\b${name}\\b[^;]*from '(?:\\.\\./)+${owner.replace('-', '\\-')}/index\\.js'`,
        );
        if (!fromOwner.test(text)) found.push(where);
      } else if (new RegExp(`^(?:interface|type) ${name}\\b`, 'm').test(text)) {
        found.push(where);
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
});
