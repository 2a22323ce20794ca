import type { Command } from 'commander';
import { seg } from '../api-client.js';
import { api, common, fields, run, show, table, type CommonOptions } from './output.js';

/** One person of the project, as GET /v1/members lists them (docs/accounts.md, "Members and roles"). */
interface Member {
  user_id: string;
  email: string | null;
  name: string | null;
  role: string | null;
  created_at: string;
}

interface AuditEvent {
  id: string;
  action: string;
  actor_user_id: string | null;
  actor_key_id: string | null;
  target_user_id: string;
  target_email: string | null;
  role_before: string;
  role_after: string | null;
  created_at: string;
}

const ROLES = ['owner', 'admin', 'member'];

/** A member named by user id, or by e-mail address (looked up in the project's list). */
async function userIdOf(opts: CommonOptions, who: string): Promise<string> {
  if (!who.includes('@')) return who;
  const email = who.trim().toLowerCase();
  const found = (await api(opts).list<Member>('/v1/members')).find((m) => m.email === email);
  if (!found) throw new Error(`no member of this project has the address ${who}`);
  return found.user_id;
}

/** Fills `crucible members` (admin): list, set-role, remove, audit. */
export function registerMemberCommands(members: Command): void {
  common(members.command('list'))
    .description('list the members: user id, e-mail address, name, role')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<Member>('/v1/members');
        show(opts, list, () =>
          table(list, [
            ['user_id', (m) => m.user_id, 'id'],
            ['email', (m) => m.email, 'text'],
            ['name', (m) => m.name, 'text'],
            ['role', (m) => m.role],
            ['since', (m) => m.created_at, 'time'],
          ]),
        );
      }),
    );

  common(members.command('set-role <member> <role>'))
    .description('change a member’s role (owner, admin or member); <member> is a user id or an e-mail address')
    .action(
      run(async (who: string, role: string, opts: CommonOptions) => {
        if (!ROLES.includes(role)) throw new Error(`the role must be one of ${ROLES.join(', ')}, not "${role}"`);
        const userId = await userIdOf(opts, who);
        const m = await api(opts).request<Member & { changed: boolean }>('PUT', `/v1/members/${seg(userId)}`, {
          body: { role },
        });
        show(opts, m, () =>
          m.changed ? `${m.email ?? userId} is now ${m.role}.\n` : `${m.email ?? userId} already was ${m.role}.\n`,
        );
      }),
    );

  common(members.command('remove <member>'))
    .description('remove a member from the project; <member> is a user id or an e-mail address')
    .action(
      run(async (who: string, opts: CommonOptions) => {
        const userId = await userIdOf(opts, who);
        const m = await api(opts).del<Member>(`/v1/members/${seg(userId)}`);
        show(opts, m, () => `${m.email ?? userId} removed from the project.\n${fields({ ...m })}`);
      }),
    );

  common(members.command('audit'))
    .description('the changes to the project’s people, newest first')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<AuditEvent>('/v1/audit-events');
        show(opts, list, () =>
          table(list, [
            ['at', (e) => e.created_at, 'time'],
            ['action', (e) => e.action],
            ['member', (e) => e.target_email ?? e.target_user_id, 'text'],
            ['before', (e) => e.role_before],
            ['after', (e) => e.role_after ?? '-'],
            ['by', (e) => e.actor_user_id ?? e.actor_key_id, 'id'],
          ]),
        );
      }),
    );
}
