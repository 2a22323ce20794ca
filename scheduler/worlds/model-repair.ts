import { type FieldProblem, ValidationFailedError } from '../../core/index.js';
import { crossCheck, instantiate, validateTemplate, withWorldGuards, type Scenario } from '../../world/index.js';
import type { ScenarioVerdict } from '../../world-worker/index.js';
import type { PhaseContext } from '../jobs/index.js';
import { buildChain, parseJsonAnswer } from './authoring.js';
import { need, type BuildScenario, type BuildState } from './build-state.js';
import { templateAsWritten } from './proposals.js';

/** One failing scenario the model is asked to repair, and what came of it. */
export interface ModelRepairOutcome {
  scenario_id: string;
  /** The repaired scenario, or null when the model's repair was refused too. */
  replacement: Scenario | null;
  /** Why the repair was refused (empty when kept). */
  problems: string[];
}

/**
 * Repairs failing scenarios with the model, from their validation report (docs/worlds.md,
 * Repair): one call per round for all of them, each answered with a corrected template
 * that must pass the same schema and cross-checks as a source's own before it replaces the
 * failing scenario (its id gets `-r<round>` so it never collides with the one it replaces).
 * The call is spent on the job, so `budget_usd` binds.
 */
export async function repairWithModel(
  ctx: PhaseContext,
  models: string[],
  state: BuildState,
  failing: Array<{ build: BuildScenario; verdict: ScenarioVerdict | undefined }>,
  round: number,
): Promise<{ outcomes: ModelRepairOutcome[]; report: Record<string, unknown> }> {
  const { manifest, templates, seed } = need(state, 'analysis');
  const tools = need(state, 'tools');
  const { chain } = await buildChain(ctx, models);
  const cases = failing.map(({ build, verdict }) => {
    const t = templates.find((x) => x.id === build.scenario.template);
    return {
      scenario_id: build.scenario.id,
      template: t && build.origin === 'build' ? templateAsWritten(t) : build.scenario,
      problems: verdict?.problems ?? ['it did not pass validation'],
    };
  });
  const res = await chain.complete({
    temperature: 0,
    messages: [
      {
        role: 'system',
        content:
          'You repair scenario templates of a simulated customer-support world. Each case gives a template and what its ' +
          'validation replay reported. Answer with one JSON object {"templates": [...]}: one corrected template per case, in ' +
          'order, in the source format (id, title, difficulty, tags, persona, facts, request, revisions, seed, reference_plan, ' +
          'checks, variants). Fix the reference plan or the checks so the plan passes every check and at least one check ' +
          'fails on the untouched world; use only tools the acting role has.',
      },
      {
        role: 'user',
        content: JSON.stringify({
          world: { name: manifest.name, roles: manifest.roles.map((r) => ({ name: r.name, tools: r.tools })) },
          tools: tools.map((t) => ({ name: t.name, kind: t.kind, parameters: t.parameters })),
          cases,
        }),
      },
    ],
  });
  await ctx.spend(res.cost_usd);
  const answer = parseJsonAnswer(res.message.content);
  const raw = Array.isArray(answer?.templates) ? (answer.templates as unknown[]) : [];
  const used = new Set(need(state, 'scenarios').map((b) => b.scenario.id));
  const outcomes = cases.map((c, i): ModelRepairOutcome => {
    const candidate = raw[i];
    if (!candidate) return { scenario_id: c.scenario_id, replacement: null, problems: ['the model gave no repair'] };
    try {
      const file = `repair of ${c.scenario_id}`;
      const t = validateTemplate(candidate, file);
      t.id = `${t.id.replace(/-r\d+$/, '')}-r${round}`;
      const problems: FieldProblem[] = crossCheck(manifest, tools, seed, [t], manifest.seed || 'seed');
      if (problems.length > 0) throw new ValidationFailedError('repair refused', problems);
      // a scenario of a source template keeps its variant: its repairs stay distinct scenarios
      const b = failing[i]!.build;
      const index = b.origin === 'build' && t.variants[b.scenario.variant - 1] ? b.scenario.variant - 1 : 0;
      // the repair stands in for the failing scenario: it keeps that scenario's family split
      const guarded = withWorldGuards(t, tools, seed, manifest.customer);
      const replacement = instantiate(guarded, index, t.variants[index] ?? {}, manifest.name, b.scenario.split);
      if (used.has(replacement.id)) throw new Error(`the repair repeats scenario id ${replacement.id}`);
      used.add(replacement.id);
      return { scenario_id: c.scenario_id, replacement, problems: [] };
    } catch (err) {
      const details = err instanceof ValidationFailedError ? err.problems : [];
      return {
        scenario_id: c.scenario_id,
        replacement: null,
        problems: details.length ? details.map((d) => `${d.field}: ${d.message}`) : [(err as Error).message],
      };
    }
  });
  return {
    outcomes,
    report: {
      round,
      model: res.model,
      cost_usd: res.cost_usd,
      repaired: outcomes.filter((o) => o.replacement).map((o) => [o.scenario_id, o.replacement!.id]),
      refused: outcomes
        .filter((o) => !o.replacement)
        .map((o) => ({ scenario_id: o.scenario_id, problems: o.problems })),
    },
  };
}
