import { chooseAdapters, createLogger, type Config } from '../core/index.js';
import {
  addOperator,
  ensureAccountIndexes,
  ensureWorkspaceIndexes,
  listOperators,
  removeOperator,
  type OperatorView,
} from '../accounts/index.js';

export type OperatorsAction = { kind: 'list' } | { kind: 'add' | 'remove'; who: string };

/**
 * `crucible admin operators [add|remove <email-or-user-id>]`, run on the server with its
 * environment (SERVICE_DATA_DIR, DATABASE_URL or MONGODB_URL): names operators by user id in the store.
 * Access to the server's store is the proof of authority; the user must have an account
 * already (sign up, or `crucible admin add-user`). A change applies to the user's next
 * request, on every gateway.
 *
 * @returns the operators (list) or the one changed.
 */
export async function adminOperators(config: Config, action: OperatorsAction): Promise<OperatorView[]> {
  const adapters = await chooseAdapters(config, createLogger('silent'));
  try {
    const store = adapters.store;
    await ensureWorkspaceIndexes(store);
    await ensureAccountIndexes(store);
    if (action.kind === 'list') return await listOperators(store);
    const who = action.who.trim();
    if (!who) throw new Error(`crucible admin operators ${action.kind} needs an e-mail address or a user id (usr_...)`);
    const changed = action.kind === 'add' ? await addOperator(store, who) : await removeOperator(store, who);
    if (!changed)
      throw new Error(
        `there is no account ${who}: the user signs up (or \`crucible admin add-user\` adds them) first, then is named an operator`,
      );
    return [changed];
  } finally {
    await adapters.close();
  }
}
