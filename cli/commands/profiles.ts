import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { AgentProfile } from '../../proto/index.js';
import { seg } from '../api-client.js';
import { api, common, num, record, run, show, table, type CommonOptions } from './output.js';

interface ProfileOptions extends CommonOptions {
  name: string;
  driver?: string;
  systemPrompt?: string;
  systemPromptFile?: string;
  toolGuidance?: string;
  model?: string;
  temperature?: number;
  maxTurns?: number;
}

/** Fills `crucible profiles`: list, get, create. */
export function registerProfileCommands(profiles: Command): void {
  common(profiles.command('list'))
    .description('list every version of every profile')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<AgentProfile>('/v1/agent-profiles');
        show(opts, list, () =>
          table(list, [
            ['id', (p) => p.id, 'id'],
            ['profile', (p) => p.label ?? `${p.name}@v${p.version}`, 'text'],
            ['driver', (p) => p.driver],
            ['model', (p) => p.model, 'text'],
            ['temperature', (p) => p.temperature],
            ['max_turns', (p) => p.max_turns_per_actor],
          ]),
        );
      }),
    );

  common(profiles.command('get <prof_id>'))
    .description('show a profile version')
    .action(
      run(async (id: string, opts: CommonOptions) => {
        const p = await api(opts).get<AgentProfile>(`/v1/agent-profiles/${seg(id)}`);
        show(opts, p, () => record(p));
      }),
    );

  common(profiles.command('create'))
    .description('create a profile; an existing name gets its next version')
    .requiredOption('--name <name>', 'profile name')
    .option('--driver <driver>', 'llm (the service runs a model) or external (your code acts)')
    .option('--system-prompt <text>', 'agent instructions (empty: the platform default)')
    .option('--system-prompt-file <file>', 'read the instructions from a file')
    .option('--tool-guidance <json>', 'JSON object: tool name to extra text for its description')
    .option('--model <chain>', 'model chain instead of the server default')
    .option('--temperature <t>', 'sampling temperature (default 0.2)', num)
    .option('--max-turns <n>', 'turns each actor may take in an episode (default 25)', num)
    .action(
      run(async (opts: ProfileOptions) => {
        const systemPrompt = opts.systemPromptFile ? await readFile(opts.systemPromptFile, 'utf8') : opts.systemPrompt;
        let toolGuidance: unknown;
        if (opts.toolGuidance !== undefined) {
          try {
            toolGuidance = JSON.parse(opts.toolGuidance);
          } catch {
            throw new Error('--tool-guidance must be a JSON object, e.g. {"search":"read before writing"}');
          }
        }
        const body = {
          name: opts.name,
          driver: opts.driver,
          system_prompt: systemPrompt,
          tool_guidance: toolGuidance,
          model: opts.model,
          temperature: opts.temperature,
          max_turns_per_actor: opts.maxTurns,
        };
        const p = await api(opts).post<AgentProfile>('/v1/agent-profiles', body);
        show(opts, p, () => `Profile ${p.label ?? `${p.name}@v${p.version}`} created: ${p.id} (driver ${p.driver}).\n`);
      }),
    );
}
