import type { Command } from 'commander';
import type { Answer, ApiKey, ApiKeyCreated } from '../../proto/index.js';
import { seg } from '../api-client.js';
import { api, collect, common, fields, run, show, table, type CommonOptions } from './output.js';

/** Fills `crucible keys` (admin): list, create, revoke. */
export function registerKeyCommands(keys: Command): void {
  common(keys.command('list'))
    .description('list keys: name, prefix, scopes, last use (never the key itself)')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<ApiKey>('/v1/api-keys');
        show(opts, list, () =>
          table(list, [
            ['id', (k) => k.id, 'id'],
            ['name', (k) => k.name, 'text'],
            ['prefix', (k) => k.prefix],
            ['scopes', (k) => (k.scopes ?? []).join(','), 'text'],
            ['last_used', (k) => k.last_used_at, 'time'],
          ]),
        );
      }),
    );

  common(keys.command('create'))
    .description('create a key; it is shown once')
    .requiredOption('--name <name>', 'what the key is for')
    .option('--scope <scope>', 'admin, read, write, evaluator or agent (repeatable; default admin)', collect)
    .action(
      run(async (opts: CommonOptions & { name: string; scope?: string[] }) => {
        const k = await api(opts).post<ApiKeyCreated>('/v1/api-keys', { name: opts.name, scopes: opts.scope });
        show(
          opts,
          k,
          () =>
            `Key ${k.id} (${(k.scopes ?? []).join(', ')}), shown this once:\n  ${k.api_key}\n${k.note ? `${k.note}\n` : ''}`,
        );
      }),
    );

  common(keys.command('revoke <key_id>'))
    .description('revoke a key: it stops working at once')
    .action(
      run(async (keyId: string, opts: CommonOptions) => {
        const answer = await api(opts).del<Answer>(`/v1/api-keys/${seg(keyId)}`);
        show(
          opts,
          answer,
          () =>
            `Key ${keyId} revoked.\n${answer && typeof answer === 'object' && Object.keys(answer).length ? fields(answer) : ''}`,
        );
      }),
    );
}
