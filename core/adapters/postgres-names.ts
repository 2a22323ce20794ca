import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { IndexSpec } from '../ports.js';

/** The PostgreSQL names the store gives its tables, indexes and prepared statements. */

const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
/** PostgreSQL cuts identifiers at 63 bytes; longer index names end in a hash instead. */
const MAX_IDENTIFIER = 63;
/**
 * Distinct statement texts prepared by name at most; later ones are parsed each time. It
 * bounds what each connection holds (a text differs per collection and per `where` shape).
 */
const MAX_PREPARED = 500;

/** A collection's name is its table's: letters, digits and _ only, starting with a letter. */
export function checkCollection(collection: string): void {
  if (!COLLECTION_NAME.test(collection)) {
    throw new ServiceError(
      'bad_request',
      `invalid collection name "${collection}": letters, digits and _ only, starting with a letter`,
    );
  }
}

/** The PostgreSQL name of the index `ensureIndexes` makes for `index` (names are per schema, hence the collection). */
export function indexName(collection: string, index: IndexSpec): string {
  const name = `${collection}__${index.unique ? 'ux' : 'ix'}__${index.fields.join('__').replace(/[^A-Za-z0-9_]/g, '_')}`;
  if (name.length <= MAX_IDENTIFIER) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `${name.slice(0, MAX_IDENTIFIER - hash.length - 1)}_${hash}`;
}

/** The names of prepared statements, by their text: one per distinct text, up to MAX_PREPARED. */
export class StatementNames {
  readonly #names = new Map<string, string>();

  /** The name `sql` is prepared under; undefined once MAX_PREPARED texts have names (it is then parsed each time). */
  nameOf(sql: string): string | undefined {
    let name = this.#names.get(sql);
    if (name === undefined && this.#names.size < MAX_PREPARED) {
      name = `crucible_${this.#names.size + 1}`;
      this.#names.set(sql, name);
    }
    return name;
  }
}
