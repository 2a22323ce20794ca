import type { Command } from 'commander';
import type { Answer, ScenarioView, WorldListItem, WorldVersion, WorldVersionRef } from '../../proto/index.js';
import { seg } from '../api-client.js';
import { api, common, num, record, run, show, table, type Column, type CommonOptions } from './output.js';

const scenarioColumns: readonly Column<ScenarioView>[] = [
  ['id', (s) => s.id, 'id'],
  ['split', (s) => s.split],
  ['status', (s) => s.status],
  ['scenario', (s) => s.scenario_id ?? s.template, 'text'],
];

/** Fills `crucible worlds`: list, version, validate. */
export function registerWorldCommands(worlds: Command): void {
  common(worlds.command('list'))
    .description('list worlds with their versions and status')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<WorldListItem>('/v1/worlds');
        const rows = list.flatMap((w): Array<{ world: WorldListItem; v: WorldVersionRef | null }> =>
          w.versions?.length ? w.versions.map((v) => ({ world: w, v })) : [{ world: w, v: null }],
        );
        show(opts, list, () =>
          table(rows, [
            ['world', (r) => r.world.id, 'id'],
            ['name', (r) => r.world.name, 'text'],
            ['version', (r) => r.v?.version],
            ['world_version_id', (r) => r.v?.id, 'id'],
            ['status', (r) => r.v?.status],
            ['content_hash', (r) => (r.v?.world_content_hash ? String(r.v.world_content_hash).slice(0, 16) : null)],
          ]),
        );
      }),
    );

  common(worlds.command('version <wv_id>'))
    .description('show a world version: manifest, validation report, provenance')
    .action(
      run(async (wvId: string, opts: CommonOptions) => {
        const wv = await api(opts).get<WorldVersion>(`/v1/world-versions/${seg(wvId)}`);
        show(opts, wv, () => record(wv));
      }),
    );

  common(worlds.command('validate <wv_id>'))
    .description(
      'replay every scenario, try each with a live agent, withdraw unfair ones (spends: the model agent costs money)',
    )
    .option('--model <chain>', 'a model agent plays each fair scenario without the answer key (it spends)')
    .option('--no-model', 'no model agent, even when the server has a default (SERVICE_VALIDATION_MODEL)')
    .option('--budget <usd>', 'the model agent stops at this spend', num)
    .action(
      run(async (wvId: string, opts: CommonOptions & { model?: string | false; budget?: number }) => {
        const body = { model: opts.model === false ? null : opts.model, budget_usd: opts.budget };
        const answer = await api(opts).post<Answer>(`/v1/world-versions/${seg(wvId)}/validate`, body);
        show(opts, answer, () => record(answer));
      }),
    );
}

/** Fills `crucible scenarios`: list and get. */
export function registerScenarioCommands(scenarios: Command): void {
  common(scenarios.command('list <wv_id>'))
    .description('list the scenarios of a world version with split and status')
    .action(
      run(async (wvId: string, opts: CommonOptions) => {
        const list = await api(opts).list<ScenarioView>(`/v1/world-versions/${seg(wvId)}/scenarios`);
        show(opts, list, () => table(list, scenarioColumns));
      }),
    );

  common(scenarios.command('get <sc_id>'))
    .description('show a scenario: specification and validation report')
    .action(
      run(async (scId: string, opts: CommonOptions) => {
        const sc = await api(opts).get<ScenarioView>(`/v1/scenarios/${seg(scId)}`);
        show(opts, sc, () => record(sc));
      }),
    );

  for (const decision of ['approve', 'reject'] as const) {
    common(scenarios.command(`${decision} <sc_id>`))
      .description(
        decision === 'approve' ? 'approve a scenario: runs then use it' : 'reject a scenario: runs do not use it',
      )
      .action(
        run(async (scId: string, opts: CommonOptions) => {
          const answer = await api(opts).post<Answer>(`/v1/scenarios/${seg(scId)}/${decision}`);
          show(
            opts,
            answer,
            () =>
              `Scenario ${scId} ${decision === 'approve' ? 'approved' : 'rejected'}${answer?.status ? ` (status ${answer.status})` : ''}.\n`,
          );
        }),
      );
  }
}
