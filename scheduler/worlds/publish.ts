import { Collections } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import {
  contentHash,
  familiesBySplit,
  sha256Hex,
  type AppTool,
  type Scenario,
  type Split,
  type WorldManifest,
} from '../../world/index.js';
import type { ScenarioVerdict } from '../../world-worker/index.js';
import type { JobPhase } from '../jobs/index.js';
import { BUILDER_VERSION, need, type BuildInput, type BuildState } from './build-state.js';
import type { ScenarioDoc, ScenarioReport, WorldVersionDoc } from './types.js';

const SPLITS: Split[] = ['train', 'dev', 'holdout'];

/**
 * The coverage rule of docs/worlds.md (Expansion and splits), applied again to the
 * published set, since repair may have withdrawn a split's only family: with 3 or more
 * families, every empty split (train, dev, holdout order) takes the whole family of the
 * greatest-id scenario of the currently largest split (a family never straddles two
 * splits). Deterministic.
 */
export function coverSplits(scenarios: Scenario[]): Scenario[] {
  const out = scenarios.map((s) => ({ ...s })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (new Set(out.map((s) => s.template)).size < SPLITS.length) return out;
  for (const missing of SPLITS) {
    const count = (s: Split) => out.filter((x) => x.split === s).length;
    if (count(missing) > 0) continue;
    let largest: Split = 'train';
    for (const s of SPLITS) if (count(s) > count(largest)) largest = s;
    const inLargest = out.filter((x) => x.split === largest);
    // a split whose every scenario is one family cannot give it away without emptying itself
    if (new Set(inLargest.map((x) => x.template)).size < 2) continue;
    const donor = inLargest.reduce((a, b) => (b.id > a.id ? b : a));
    for (const x of out) if (x.template === donor.template) x.split = missing;
  }
  return out;
}

/** The id of a scenario record: stable per (world version, scenario), so a re-run publish replaces rather than duplicates. */
export const scenarioDocId = (worldVersionId: string, scenarioId: string): string =>
  `sc_${sha256Hex(`${worldVersionId}\n${scenarioId}`).slice(0, 32)}`;

/**
 * The policies every agent of the world version is given: the source's policies file, then
 * the application's own `policies` field under a heading of its own (either may be empty).
 */
export function combinedPolicies(fromSource: string, fromApplication: string | undefined): string {
  const app = (fromApplication ?? '').trim();
  if (!app) return fromSource;
  return fromSource.trim() ? `${fromSource.trim()}\n\n## Application policies\n${app}\n` : `${app}\n`;
}

/** The manifest as a world version shows it: services, roles, customer, policies and tools. */
export function manifestView(manifest: WorldManifest, tools: AppTool[], policies: string): Record<string, unknown> {
  return {
    name: manifest.name,
    description: manifest.description,
    services: manifest.services.map((s) => ({
      name: s.name,
      image: s.image,
      port_env: s.port_env,
      health: s.health,
      openapi: s.openapi,
    })),
    roles: manifest.roles,
    customer: manifest.customer,
    // the judge the version pinned (world.yaml, the build's judge_model or the server's default)
    ...(manifest.judge ? { judge: manifest.judge } : {}),
    policies,
    tools: tools.map((t) => ({
      name: t.name,
      kind: t.kind,
      service: t.service,
      method: t.method,
      path: t.path,
      description: t.description,
      parameters: t.parameters,
    })),
  };
}

export function reportOf(v: ScenarioVerdict, extra: Partial<ScenarioReport> = {}): ScenarioReport {
  return {
    passed: v.passed,
    deterministic: v.deterministic,
    problems: v.problems,
    replays: v.replays,
    ...(v.calibration ? { calibration: v.calibration, hackable: v.hackable ?? false } : {}),
    ...(v.adversaries ? { adversaries: v.adversaries, adversary_flags: v.adversary_flags ?? [] } : {}),
    validated_at: nowIso(),
    ...extra,
  };
}

/**
 * publish: computes the content hash over manifest, tools, the published scenarios,
 * source digest and image pins (two builds of the same pinned input give the same hash),
 * writes the scenario records (approved when `auto_approve`, else pending approval;
 * withdrawn ones with their reasons) and turns the world version `published`.
 */
export const publishPhase: JobPhase<BuildInput> = {
  name: 'publish',
  async run(ctx) {
    const input = ctx.input;
    const state = ctx.checkpoint<BuildState>();
    const { manifest, seed } = need(state, 'analysis');
    const policies = combinedPolicies(need(state, 'analysis').policies, input.application.policies);
    const tools = need(state, 'tools');
    const source = need(state, 'source');
    const verdicts = state.verdicts ?? {};
    const withdrawn = state.withdrawn ?? [];
    const kept = need(state, 'scenarios');
    if (kept.length === 0) {
      const why = withdrawn
        .slice(0, 3)
        .map((w) => `${w.scenario.id}: ${w.reasons[0]}`)
        .join('; ');
      throw new ServiceError(
        'validation_failed',
        `no scenario passed validation, so there is nothing to publish (${why || 'no scenarios'})`,
      );
    }
    const origins = new Map(kept.map((b) => [b.scenario.id, b.origin]));
    // a source that fixes its splits (`expand: all`, an imported benchmark's own) keeps them as they are
    const scenarios =
      manifest.expand === 'all' ? kept.map((b) => b.scenario) : coverSplits(kept.map((b) => b.scenario));
    const hash = contentHash({
      manifest,
      tools,
      scenarios,
      sourceDigest: source.digest,
      imagePins: input.application.images,
      applicationPolicies: input.application.policies,
    });

    const store = ctx.deps.adapters.store;
    const now = nowIso();
    await store.deleteMany(Collections.scenarios, {
      world_version_id: input.world_version_id,
      origin: { $in: ['build', 'model'] },
    });
    const base = {
      project_id: ctx.job.project_id,
      world_version_id: input.world_version_id,
      world_id: input.world_id,
      created_at: now,
      updated_at: now,
    };
    for (const s of scenarios) {
      await store.insert<ScenarioDoc>(Collections.scenarios, {
        ...base,
        _id: scenarioDocId(input.world_version_id, s.id),
        scenario_id: s.id,
        template: s.template,
        split: s.split,
        status: input.options.auto_approve ? 'approved' : 'pending_approval',
        origin: origins.get(s.id) ?? 'build',
        specification: s,
        validation_report: reportOf(verdicts[s.id]!),
      });
    }
    for (const w of withdrawn) {
      const v = verdicts[w.scenario.id];
      await store.insert<ScenarioDoc>(Collections.scenarios, {
        ...base,
        _id: scenarioDocId(input.world_version_id, w.scenario.id),
        scenario_id: w.scenario.id,
        template: w.scenario.template,
        split: w.scenario.split,
        status: 'withdrawn',
        origin: w.origin,
        specification: w.scenario,
        validation_report: {
          ...(v ? reportOf(v) : { passed: false, deterministic: null, replays: [], validated_at: now }),
          problems: w.reasons,
          ...(w.replaced_by ? { replaced_by: w.replaced_by } : {}),
        },
      });
    }

    const splits = Object.fromEntries(SPLITS.map((sp) => [sp, scenarios.filter((s) => s.split === sp).length]));
    const published = await store.update<WorldVersionDoc>(Collections.worldVersions, input.world_version_id, {
      status: 'published',
      manifest: manifestView(manifest, tools, policies),
      validation_report: {
        passed: scenarios.length,
        withdrawn: withdrawn.length,
        splits,
        families: familiesBySplit(scenarios),
        determinism_checked: input.options.check_determinism,
        replays_per_scenario: input.options.check_determinism ? 2 : 1,
        repair_rounds: state.repair_rounds ?? 0,
        withdrawals: withdrawn.map((w) => ({
          scenario_id: w.scenario.id,
          reasons: w.reasons,
          replaced_by: w.replaced_by,
        })),
        proposals: state.proposals ?? null,
        authoring: state.authoring ?? null,
        model_repairs: state.model_repairs ?? [],
      },
      provenance: {
        application: { id: input.application.id, name: input.application.name },
        source: { ...source, catalog: input.application.catalog },
        images: input.application.images,
        build_options: input.options,
        builder_version: BUILDER_VERSION,
        job_id: ctx.job._id,
        built_at: now,
      },
      world_content_hash: hash,
      source_digest: source.digest,
      compiled: { manifest, tools, seed, policies, images: input.application.images },
      error: null,
      published_at: now,
      updated_at: now,
    });
    if (!published) throw new ServiceError('gone', `world version ${input.world_version_id} no longer exists`);
    const result = {
      world_id: input.world_id,
      world_version_id: input.world_version_id,
      version: input.version,
      world_content_hash: hash,
      scenarios: scenarios.length,
      splits,
      withdrawn: withdrawn.length,
    };
    ctx.setResult(result);
    await ctx.emit('build.published', `world version ${input.version} published with ${scenarios.length} scenarios`, {
      world_id: input.world_id,
      world_version_id: input.world_version_id,
      version: input.version,
      world_content_hash: hash,
      scenarios: scenarios.length,
    });
  },
};
