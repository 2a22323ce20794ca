import { invalid } from './errors.js';
import type { Doc, DocumentStore, Filter } from './ports.js';

/** One sort key of a paged list; every list ends its order with `_id` ascending. */
export interface SortKey {
  field: string;
  direction: 'asc' | 'desc';
}

/** What a caller asked for: at most `limit` items after `cursor` (null: from the start). */
export interface PageRequest {
  limit: number;
  cursor: string | null;
}

/** One page: the items, and the cursor of the next page (null on the last one). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** Default and largest `limit` of one list operation (documented in openapi.yaml and docs/clients.md). */
export interface PageBounds {
  default: number;
  max: number;
}

/** The bounds of most lists; a list with larger items may choose smaller ones. */
export const LIST_PAGE: PageBounds = Object.freeze({ default: 100, max: 500 });

type Key = string | number;

/**
 * The header a scheduler answer carries the next page's cursor in; the gateway turns it
 * into the `Link` header (it alone knows the URL) and does not pass it on.
 */
export const NEXT_CURSOR_HEADER = 'x-crucible-next-cursor';

/**
 * A cursor is the sort values and `_id` of the last item of a page, as base64url JSON:
 * opaque to clients, and a position rather than an offset, so items inserted or removed
 * before it never shift what the next page holds.
 */
export function encodeCursor(values: Key[]): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** The values of a cursor made by `encodeCursor` for `keys` sort keys; 422 (`query.cursor`) otherwise. */
export function decodeCursor(cursor: string, keys: number): Key[] {
  const bad = () => invalid('query.cursor', 'is not a cursor of this list; pass the one of a Link rel="next" as given');
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw bad();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(values) ||
    values.length !== keys + 1 ||
    !values.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) ||
    typeof values[keys] !== 'string'
  )
    throw bad();
  return values as Key[];
}

/** `limit` and `cursor` of a validated query (the gateway already checked `limit` against the document). */
export function pageRequest(query: Record<string, unknown>, bounds: PageBounds = LIST_PAGE): PageRequest {
  const raw = query.limit;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw !== '' ? Number(raw) : bounds.default;
  if (!Number.isInteger(n) || n < 1 || n > bounds.max)
    throw invalid('query.limit', `must be a whole number from 1 to ${bounds.max}`);
  const cursor = typeof query.cursor === 'string' && query.cursor !== '' ? query.cursor : null;
  return { limit: n, cursor };
}

const valueAt = (doc: Doc, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);

/**
 * One page of `collection` matching `filter`, ordered by `keys` (one or two) then `_id`
 * ascending, by keyset: each step asks for what follows the cursor's position on one key
 * with the keys before it held equal, so a page costs at most `keys.length + 1` indexed
 * reads of at most `limit + 1` documents, however long the list. The sort fields must be
 * present (string or number) on every listed document and must not change.
 */
export async function pageOf<T extends Doc>(
  store: DocumentStore,
  collection: string,
  filter: Filter,
  keys: SortKey[],
  req: PageRequest,
): Promise<Page<T>> {
  if (keys.length < 1 || keys.length > 2) throw new Error('pageOf sorts by one or two keys');
  for (const k of keys)
    if (k.field in filter || k.field === '_id') throw new Error(`pageOf cannot filter on ${k.field}`);
  const want = req.limit + 1;
  const out: T[] = [];
  const steps: Array<{ filter: Filter; keys: SortKey[] }> = [];
  if (req.cursor === null) steps.push({ filter, keys });
  else {
    const at = decodeCursor(req.cursor, keys.length);
    const equal: Filter = { ...filter };
    keys.forEach((k, i) => (equal[k.field] = at[i]!));
    steps.push({ filter: { ...equal, _id: { $gt: at[keys.length]! } }, keys: [] });
    for (let i = keys.length - 1; i >= 0; i--) {
      const f: Filter = { ...filter };
      for (let j = 0; j < i; j++) f[keys[j]!.field] = at[j]!;
      f[keys[i]!.field] = keys[i]!.direction === 'asc' ? { $gt: at[i]! } : { $lt: at[i]! };
      steps.push({ filter: f, keys: keys.slice(i) });
    }
  }
  for (const step of steps) {
    if (out.length >= want) break;
    const [first, then] = step.keys;
    const docs = await store.find<T>(collection, step.filter, {
      sort: first ?? { field: '_id', direction: 'asc' },
      ...(then ? { then } : {}),
      limit: want - out.length,
    });
    out.push(...docs);
  }
  if (out.length <= req.limit) return { items: out, next: null };
  const items = out.slice(0, req.limit);
  const last = items[items.length - 1]!;
  const values = keys.map((k) => {
    const v = valueAt(last, k.field);
    if (typeof v !== 'string' && typeof v !== 'number')
      throw new Error(`${collection}.${k.field} of ${last._id} is not sortable`);
    return v;
  });
  return { items, next: encodeCursor([...values, last._id]) };
}

/**
 * The `Link` header value of a next page: the request's own path and query with `cursor`
 * replaced (RFC 8288, `rel="next"`).
 */
export function nextLink(originalUrl: string, cursor: string): string {
  const u = new URL(originalUrl, 'http://x');
  u.searchParams.set('cursor', cursor);
  return `<${u.pathname}${u.search}>; rel="next"`;
}

/**
 * One page of a list held in memory (a small registry such as the world-workers), ordered
 * by `keyOf` ascending (unique keys); the cursor is the last key of the page.
 */
export function pageArray<T>(items: T[], keyOf: (item: T) => string, req: PageRequest): Page<T> {
  const sorted = [...items].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const after = req.cursor === null ? null : String(decodeCursor(req.cursor, 0)[0]);
  const rest = after === null ? sorted : sorted.filter((x) => keyOf(x) > after);
  if (rest.length <= req.limit) return { items: rest, next: null };
  const page = rest.slice(0, req.limit);
  return { items: page, next: encodeCursor([keyOf(page[page.length - 1]!)]) };
}
