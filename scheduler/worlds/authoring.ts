import { stringify as toYaml } from 'yaml';
import { ServiceError, ValidationFailedError } from '../../core/index.js';
import { ModelChain, OpenAiModelClient, priceTable, type ModelMessage } from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import { BUILD_WORK, type AnalyseAnswer, type CodeRef, type SourceSurvey } from '../../world-worker/index.js';
import { putArchive } from '../applications/index.js';
import { describeFailure, type PhaseContext } from '../jobs/index.js';
import { callWorker } from './worker-calls.js';

/** What the model is asked to write for a source without a world. */
interface ProposedWorld {
  world: Record<string, unknown>;
  openapi?: Record<string, unknown>;
  policies?: string;
  seed?: unknown[];
  templates?: Array<Record<string, unknown>>;
}

/** The build's model chain over the project's provider, priced by the operator's price file. */
export async function buildChain(
  ctx: PhaseContext,
  models: string[],
): Promise<{ chain: ModelChain; credential: string }> {
  const { apiKey, credential } = await resolveModelApiKey(ctx.deps.adapters.store, ctx.job.project_id, ctx.deps.config);
  const chain = new ModelChain(new OpenAiModelClient({ baseUrl: ctx.deps.config.openaiBaseUrl, apiKey }), models, {
    prices: priceTable(ctx.deps.config.modelPricesFile),
  });
  return { chain, credential };
}

const AUTHOR_PROMPT = [
  'You turn an application into a simulated customer-support world used to test software agents (Crucible, docs/worlds.md).',
  'You are shown a survey of its source: how it starts, its OpenAPI documents (or the routes of its code), and excerpts.',
  'Answer with one JSON object and nothing else:',
  '{"world": <world.yaml as JSON>, "openapi": {<path>: <OpenAPI 3 document>} (only when the source has none), "policies": <markdown>,',
  ' "seed": [<seed steps>], "templates": [<scenario templates>]}.',
  'world: {name, description, services: [{name, start: {command: [...], env: {}}, port_env: PORT, health: <GET path answering 200>, openapi: <path>}],',
  ' roles: [{name, instructions, tools: [operationIds and reply_to_customer/send_message], complete: true for exactly one}], customer: {channel: chat}}.',
  'Use the start command the survey found. Every operation needs an operationId; tools are named by it.',
  'A template: {id, title, difficulty 1-3, tags, persona, facts: {key: {value, ask: [keywords]}}, request, revisions: [], seed: [{tool, args, bind}],',
  ' reference_plan: {1: [{actor, tool, args, bind?}]}, checks: {1: [{name, kind: state|unchanged|told|refused|policy, ...}]}, variants: [{...}]}.',
  'Seed data is created with the application tools so ids are not guessable; the reference plan solves the request with the tools its role has;',
  'every goal version needs checks, and at least one check must fail on the untouched world.',
].join('\n');

/** The files a proposal becomes, beside the application's own (world.yaml and what it names). */
export function proposalFiles(p: ProposedWorld): Record<string, string> {
  const files: Record<string, string> = {};
  const templates = p.templates ?? [];
  const world = {
    ...p.world,
    policies: 'world/policies.md',
    seed: 'world/seed.yaml',
    scenarios: 'world/scenarios/*.yaml',
  };
  files['world.yaml'] = toYaml(world);
  files['world/policies.md'] = p.policies ?? '';
  files['world/seed.yaml'] = toYaml(p.seed ?? []);
  for (const [rel, doc] of Object.entries(p.openapi ?? {})) files[rel] = toYaml(doc);
  templates.forEach((t, i) => {
    const id = typeof t.id === 'string' && /^[a-z0-9-]+$/.test(t.id) ? t.id : `proposed-${i + 1}`;
    files[`world/scenarios/${id}.yaml`] = toYaml(t);
  });
  return files;
}

/** The JSON object of a model's answer, tolerating a fenced code block around it. */
export function parseJsonAnswer(text: string | null): Record<string, unknown> | null {
  const body = (text ?? '').replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, '');
  try {
    const v = JSON.parse(body) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Proposes a world for a source that has none (docs/worlds.md, From an application): the
 * model reads the survey and writes world.yaml, OpenAPI documents when the source has none,
 * policies, seed and scenario templates; the files are added to a copy of the source and
 * compiled by a world-worker like any world. A proposal the compiler refuses goes back to
 * the model with the compiler's problems, up to `maxRounds` repairs. Every call is spent
 * on the job (the build stops at `budget_usd`) and announced.
 *
 * @returns the new source (digest, files) and its analysis.
 * @throws ServiceError('validation_failed') with the last problems when no round compiles.
 */
export async function authorWorld(
  ctx: PhaseContext,
  models: string[],
  from: CodeRef,
  survey: SourceSurvey,
  maxRounds: number,
): Promise<{ digest: string; files: number; analysis: AnalyseAnswer; report: Record<string, unknown> }> {
  const { chain, credential } = await buildChain(ctx, models);
  const messages: ModelMessage[] = [
    { role: 'system', content: AUTHOR_PROMPT },
    { role: 'user', content: JSON.stringify({ survey }) },
  ];
  const rounds: Array<{ round: number; cost_usd: number; problems: string[] }> = [];
  for (let round = 0; round <= maxRounds; round++) {
    await ctx.stopIfRequested();
    const res = await chain.complete({ messages: [...messages], temperature: 0 });
    await ctx.spend(res.cost_usd);
    const answer = parseJsonAnswer(res.message.content);
    let problems: string[];
    if (!answer || typeof answer.world !== 'object' || answer.world === null) {
      problems = ['the answer is not a JSON object with a "world" object'];
    } else {
      const files = proposalFiles(answer as unknown as ProposedWorld);
      const got = await callWorker(ctx, BUILD_WORK.overlay, { files }, from);
      if (got.archive_b64)
        await putArchive(ctx.deps.adapters.store, got.digest, Buffer.from(got.archive_b64, 'base64'));
      try {
        const analysis = await callWorker(
          ctx,
          BUILD_WORK.analyse,
          {},
          { digest: got.digest, origin: { kind: 'authored', base: from } },
        );
        rounds.push({ round, cost_usd: res.cost_usd, problems: [] });
        await ctx.emit(
          'job.progress',
          `world proposed by ${res.model}${round > 0 ? ` after ${round} repair${round > 1 ? 's' : ''}` : ''}: ${analysis.manifest.roles.length} roles, ${analysis.templates.length} templates`,
          {
            phase: 'analyse',
            completed: 1,
            total: 1,
            message: `proposed ${Object.keys(files).join(', ')}`,
          },
        );
        return {
          digest: got.digest,
          files: got.files,
          analysis,
          report: {
            model: res.model,
            credential,
            from_digest: from.digest,
            files: Object.keys(files),
            rounds,
            survey: surveyBrief(survey),
          },
        };
      } catch (err) {
        if (!(err instanceof ServiceError) || (err.code !== 'validation_failed' && err.code !== 'bad_request'))
          throw err;
        problems =
          err instanceof ValidationFailedError
            ? err.problems.map((d) => `${d.field}: ${d.message}`)
            : [describeFailure(err)];
      }
    }
    rounds.push({ round, cost_usd: res.cost_usd, problems });
    await ctx.emit(
      'job.progress',
      `proposed world refused (${problems.length} problems)${round < maxRounds ? '; asking the model to repair it' : ''}`,
      {
        phase: 'analyse',
        completed: round + 1,
        total: maxRounds + 1,
        message: problems.slice(0, 3).join('; ').slice(0, 300),
      },
    );
    messages.push(
      { role: 'assistant', content: res.message.content ?? '' },
      {
        role: 'user',
        content: `The compiler refused that world:\n- ${problems.slice(0, 40).join('\n- ')}\nAnswer with the whole corrected JSON object.`,
      },
    );
  }
  throw new ServiceError(
    'validation_failed',
    `the source has no world.yaml, and the world the model proposed did not compile after ${maxRounds} repair rounds: ${rounds[rounds.length - 1]!.problems.slice(0, 3).join('; ')}`,
  );
}

function surveyBrief(s: SourceSurvey): Record<string, unknown> {
  return {
    start: s.start,
    openapi: s.openapi.map((o) => o.path),
    routes: s.routes.length,
    excerpts: s.excerpts.map((e) => e.path),
  };
}
