import { type FieldProblem, ValidationFailedError } from '../../core/index.js';
import { ModelChain, OpenAiModelClient, priceTable } from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import {
  crossCheck,
  instantiate,
  validateTemplate,
  withWorldGuards,
  type Scenario,
  type ScenarioTemplate,
} from '../../world/index.js';
import type { PhaseContext } from '../jobs/index.js';
import { BUILD_WORK } from '../../world-worker/index.js';
import { need, type BuildState } from './build-state.js';
import { codeOfSource } from '../code-trust.js';
import { callWorker } from './worker-calls.js';

/** Most proposals one build asks for. */
const MAX_PROPOSALS = 8;

/** A template in the shape a source file has (what the model is asked to write). */
export function templateAsWritten(t: ScenarioTemplate): Record<string, unknown> {
  const { file: _file, revisions, ...rest } = t;
  return { ...rest, revisions: revisions.map((r) => ({ at: r.at, text: r.text })) };
}

/**
 * Asks the build's model chain for new scenario templates (⌈target / 4⌉, at least 1, at
 * most 8) in the source format, and keeps those that pass the same schema and cross-checks
 * as a source's own templates (docs/worlds.md). The model is shown the manifest, the tool
 * schemas, one example template and the source files most relevant to them (the OpenAPI
 * documents, then the files naming the services, tools and routes; chosen and cut to a
 * token budget by a world-worker, world-worker/builds/relevant.ts). Each kept template becomes one scenario
 * (its first variant); ids must not repeat a template of the source. The call's cost is
 * spent on the job, so `budget_usd` binds (the build stops itself when it is reached).
 */
export async function proposeScenarios(
  ctx: PhaseContext,
  models: string[],
  state: BuildState,
  target: number,
): Promise<{ scenarios: Scenario[]; report: Record<string, unknown> }> {
  const { manifest, templates, seed } = need(state, 'analysis');
  const tools = need(state, 'tools');
  const requested = Math.min(MAX_PROPOSALS, Math.max(1, Math.ceil(target / 4)));
  const { apiKey, credential } = await resolveModelApiKey(ctx.deps.adapters.store, ctx.job.project_id, ctx.deps.config);
  const chain = new ModelChain(new OpenAiModelClient({ baseUrl: ctx.deps.config.openaiBaseUrl, apiKey }), models, {
    prices: priceTable(ctx.deps.config.modelPricesFile),
  });
  const world = {
    name: manifest.name,
    description: manifest.description,
    customer: manifest.customer,
    roles: manifest.roles.map((r) => ({
      name: r.name,
      tools: r.tools,
      complete: r.complete,
      instructions: r.instructions,
    })),
    tools: tools.map((t) => ({ name: t.name, kind: t.kind, description: t.description, parameters: t.parameters })),
    world_seed_binds: seed.map((s) => s.bind).filter(Boolean),
    existing_template_ids: templates.map((t) => t.id),
  };
  const terms = [...manifest.services.map((s) => s.name), ...tools.map((t) => t.name), ...tools.map((t) => t.path)];
  // the templates' own files are left out: the model is shown the manifest and an example already
  const exclude = templates.map((t) => t.file);
  const { files } = await callWorker(
    ctx,
    BUILD_WORK.sourceFiles,
    { terms, exclude },
    codeOfSource(need(state, 'source')),
  );
  const res = await chain.complete({
    temperature: 0.7,
    messages: [
      {
        role: 'system',
        content:
          'You write scenario templates for a simulated customer-support world used to test software agents. ' +
          'Answer with one JSON object {"templates": [...]} and nothing else. Each template has exactly the keys of the example ' +
          '(id, title, difficulty 1-3, tags, persona, facts, request, revisions, seed, reference_plan, checks, variants). ' +
          'Seed data is created with application tools so ids are not guessable; the reference plan must solve the final goal ' +
          'version using only tools the acting role is offered; every goal version needs checks, and at least one check must fail ' +
          'on the untouched world. Use new ids (lowercase letters, digits and single dashes). ' +
          'source_files are excerpts of the application (cut to fit): read them for what the application really does, ' +
          'its validation rules and its error cases.',
      },
      {
        role: 'user',
        content: JSON.stringify({
          count: requested,
          world,
          example: templates[0] ? templateAsWritten(templates[0]) : null,
          source_files: files.map((f) => ({
            path: f.path,
            text: f.text,
            ...(f.truncated_chars > 0 ? { truncated_chars: f.truncated_chars } : {}),
          })),
        }),
      },
    ],
  });
  await ctx.spend(res.cost_usd);

  const kept: Scenario[] = [];
  const rejected: Array<{ index: number; problems: string[] }> = [];
  const raw = parseTemplates(res.message.content ?? '');
  const ids = new Set(templates.map((t) => t.id));
  raw.slice(0, requested).forEach((candidate, i) => {
    const file = `proposal ${i + 1}`;
    try {
      const t = validateTemplate(candidate, file);
      const problems: FieldProblem[] = crossCheck(manifest, tools, seed, [t], manifest.seed || 'seed');
      if (ids.has(t.id)) problems.push({ field: `${file}: id`, message: `template id "${t.id}" already exists` });
      if (problems.length > 0) throw new ValidationFailedError('proposal refused', problems);
      ids.add(t.id);
      kept.push(instantiate(withWorldGuards(t, tools, seed, manifest.customer), 0, t.variants[0] ?? {}, manifest.name));
    } catch (err) {
      const details = err instanceof ValidationFailedError ? err.problems : [];
      rejected.push({
        index: i,
        problems: details.length ? details.map((d) => `${d.field}: ${d.message}`) : [(err as Error).message],
      });
    }
  });
  if (raw.length === 0)
    rejected.push({ index: -1, problems: ['the model answered without a JSON object holding "templates"'] });
  return {
    scenarios: kept,
    report: {
      model: res.model,
      credential,
      requested,
      source_files: files.map((f) => ({ path: f.path, chars: f.text.length, truncated_chars: f.truncated_chars })),
      received: raw.length,
      accepted: kept.map((s) => s.id),
      rejected,
      cost_usd: res.cost_usd,
      failed_attempts: res.failed_attempts,
    },
  };
}

/** The `templates` list of the model's answer, tolerating a fenced code block around the JSON. */
function parseTemplates(text: string): unknown[] {
  const body = text.replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, '');
  try {
    const parsed = JSON.parse(body) as { templates?: unknown };
    return Array.isArray(parsed?.templates) ? parsed.templates : [];
  } catch {
    return [];
  }
}
