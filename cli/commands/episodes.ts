import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Answer, Episode, Schema } from '../../proto/index.js';
import { seg } from '../api-client.js';
import { observe, waitForResult } from '../external-turns.js';
import { episodeText } from './episode-text.js';
import { api, common, layout, num, run, show, type CommonOptions } from './output.js';

/** The options of `episodes intervene`, as commander names them. */
interface InterveneOptions {
  kind: string;
  text?: string;
  goalVersion?: number;
  tool?: string;
  faultMode?: string;
  role?: string;
  count?: number;
}

/** Parses a JSON object option. */
function jsonObject(value: string | undefined, option: string): Record<string, unknown> {
  if (value === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new Error(`${option} must be a JSON object, e.g. '{"text":"hello"}'`);
}

/** Fills `crucible episodes`: get, observation, act, intervene. */
export function registerEpisodeCommands(episodes: Command): void {
  common(episodes.command('get <ep_id>'))
    .description('show an episode: its outcome, the oracle (each check: expected, observed) and the transcript')
    .action(
      run(async (epId: string, opts: CommonOptions) => {
        const ep = await api(opts).get<Episode>(`/v1/episodes/${seg(epId)}`);
        show(opts, ep, () => episodeText(ep, layout.wide));
      }),
    );

  common(episodes.command('observation <ep_id>').alias('turn'))
    .description('the waiting turn of an external episode: actor, new messages, tools')
    .option(
      '--wait <seconds>',
      'when no turn waits yet, wait up to this long for one (the server holds the read; 0: answer at once)',
      num,
      20,
    )
    .action(
      run(async (epId: string, opts: CommonOptions & { wait: number }) => {
        const o = await observe(api(opts), epId, opts.wait);
        show(opts, o, () => {
          const d = o.turn?.data;
          if (!o.awaiting_action || !d)
            return o.episode_status === 'running' && opts.wait > 0
              ? `Episode running; no turn came within ${opts.wait} s. Ask again to go on waiting.\n`
              : `Episode ${o.episode_status}; no turn waits.\n`;
          const msgs = (d.new ?? []).map((m) => `  [${m.role}] ${m.content}`).join('\n');
          const tools = (d.tools ?? []).map((t) => t.function?.name).join(', ');
          return `Turn of ${d.actor} (request version ${d.goal_version_observed}):\n${msgs}\nTools: ${tools}\n`;
        });
      }),
    );

  common(episodes.command('act <ep_id>'))
    .description('send the action of the waiting turn and wait for its result')
    .requiredOption('--actor <actor>', 'the actor the turn names')
    .requiredOption('--tool <tool>', 'one of the tools the turn offers')
    .option('--args <json>', 'the arguments as a JSON object', '{}')
    .option(
      '--key <idempotency_key>',
      'names this action (8 to 64 characters); re-send with the same key after a timeout (default: a new one)',
    )
    .option('--wait <seconds>', 'how long to wait for the result', num, 120)
    .action(
      run(
        async (
          epId: string,
          opts: CommonOptions & { actor: string; tool: string; args: string; key?: string; wait: number },
        ) => {
          const client = api(opts);
          const key = opts.key ?? randomUUID();
          const accepted = await client.post<Schema<'ActionAccepted'>>(`/v1/episodes/${seg(epId)}/actions`, {
            actor: opts.actor,
            tool: opts.tool,
            args: jsonObject(opts.args, '--args'),
            idempotency_key: key,
          });
          const result = await waitForResult(client, epId, key, opts.wait * 1000);
          show(
            opts,
            { ...result, idempotency_key: key, event_id: accepted.event_id, duplicate: accepted.duplicate ?? false },
            () => `${typeof result.result === 'string' ? result.result : JSON.stringify(result.result, null, 2)}\n`,
          );
        },
      ),
    );

  common(episodes.command('intervene <ep_id>'))
    .description('intervene in a running episode')
    .requiredOption('--kind <kind>', 'customer_message, goal_change, fault, revoke_tool or grant_tool')
    .option('--text <text>', 'for customer_message and goal_change')
    .option('--goal-version <n>', 'for goal_change', num)
    .option('--tool <tool>', 'for fault, revoke_tool and grant_tool')
    .option('--fault-mode <mode>', 'drop_response, error, timeout_before or rate_limit (for fault)')
    .option('--role <role>', 'for revoke_tool and grant_tool')
    .option('--count <n>', 'calls affected (for fault)', num)
    .action(
      run(async (epId: string, opts: CommonOptions & InterveneOptions) => {
        const body = {
          kind: opts.kind,
          text: opts.text,
          goal_version: opts.goalVersion,
          tool: opts.tool,
          fault_mode: opts.faultMode,
          role: opts.role,
          count: opts.count,
        };
        const answer = await api(opts).post<Answer>(`/v1/episodes/${seg(epId)}/interventions`, body);
        show(opts, answer, () => `Intervention ${opts.kind} queued for ${epId}.\n`);
      }),
    );
}
