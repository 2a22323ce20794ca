import { ServiceError } from '../../core/index.js';
import {
  ModelChain,
  OpenAiModelClient,
  priceTable,
  type ModelJsonSchema,
  type ModelMessage,
} from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import type { PhaseContext } from '../jobs/index.js';
import type { RunEpisodeDoc } from '../runs/index.js';
import { MAX_IDS, type Findings } from './evidence.js';
import type { Change, ProfileText } from './rules.js';

/** Episodes shown to the model, failing ones first (the prompt stays small whatever the run's size). */
export const MAX_MODEL_EPISODES = 40;
/** Longest prompt and guidance text the model may write. */
export const MAX_PROMPT_CHARS = 20_000;
export const MAX_GUIDANCE_CHARS = 4_000;
/** Repairs asked for when an answer is unusable, before the job fails. */
const REPAIR_ROUNDS = 1;

/** What the model proposes: the whole next text of the profile and the reason for each change. */
export interface ModelProposal {
  text: ProfileText;
  changes: Change[];
  /** The model that answered, its calls and their cost. */
  model: { chain: string[]; answered_by: string; calls: number; cost_usd: number };
}

/** One train or dev episode as the model sees it: what the oracle recorded, never the raw transcript. */
export interface EpisodeBrief {
  episode_id: string;
  scenario: string;
  split: 'train' | 'dev';
  reward: number | null;
  termination: string | null;
  completed: boolean;
  false_completion: boolean;
  failed_checks: Array<{ check: string; kind: string; observed: unknown }>;
  duplicate_effects: string[];
  guessed_id_tools: string[];
  failed_habits: string[];
}

/**
 * The episodes the model may read, as briefs. `episodes` must already be the learning
 * episodes (evidence.ts `learningEpisodes`: train and dev only); a holdout record is
 * dropped here again, so no caller can leak one into a prompt.
 */
export function episodeBriefs(episodes: RunEpisodeDoc[]): EpisodeBrief[] {
  const briefs: EpisodeBrief[] = [];
  for (const e of episodes) {
    const o = e.oracle;
    if (!o || (e.split !== 'train' && e.split !== 'dev')) continue;
    const habits = Object.entries(o.habits)
      .filter(([, h]) => (h as { passed: boolean; applicable?: boolean }).passed === false)
      .filter(([, h]) => (h as { applicable?: boolean }).applicable !== false)
      .map(([name]) => name);
    briefs.push({
      episode_id: e._id,
      scenario: e.scenario_id,
      split: e.split,
      reward: e.reward,
      termination: e.termination,
      completed: o.completed,
      false_completion: o.false_completion,
      failed_checks: o.check_results
        .filter((c) => !c.passed)
        .map((c) => ({ check: c.check, kind: c.kind, observed: truncate(c.observed) })),
      duplicate_effects: [...new Set(o.duplicate_effects.map((d) => d.tool))],
      guessed_id_tools: [...new Set(o.habits.ids_from_reads.violations.map((v) => v.tool))],
      failed_habits: habits,
    });
  }
  const failing = (b: EpisodeBrief) =>
    b.failed_checks.length + b.duplicate_effects.length + b.failed_habits.length + (b.false_completion ? 1 : 0);
  return briefs.sort((a, b) => failing(b) - failing(a) || a.episode_id.localeCompare(b.episode_id));
}

function truncate(v: unknown): unknown {
  const text = JSON.stringify(v ?? null);
  return text.length <= 300 ? v : `${text.slice(0, 300)}...`;
}

const SYSTEM = [
  'You improve the instructions of a customer-support software agent evaluated by Crucible.',
  'You are shown the agent profile (its system prompt and per-tool guidance), the tools it has, what its',
  'train and dev episodes of an evaluation run showed (from the grader: failed checks, duplicate writes,',
  'guessed ids, habits it broke), and the changes a fixed rule set would make.',
  'Write the next version of the profile: keep what works, fix what the episodes show is wrong, be concise.',
  'Answer with JSON only: system_prompt (the whole new prompt), tool_guidance (the whole new guidance, one',
  'entry per tool, tools of the list only), changes (one per edit: field is "system_prompt" or',
  '"tool_guidance.<tool>", change is the text added or rewritten, reason says what the episodes showed,',
  'episodes lists the ids of the episodes that showed it).',
].join('\n');

const ANSWER: ModelJsonSchema = {
  name: 'profile_version',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['system_prompt', 'tool_guidance', 'changes'],
    properties: {
      system_prompt: { type: 'string' },
      tool_guidance: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['tool', 'guidance'],
          properties: { tool: { type: 'string' }, guidance: { type: 'string' } },
        },
      },
      changes: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['field', 'change', 'reason', 'episodes'],
          properties: {
            field: { type: 'string' },
            change: { type: 'string' },
            reason: { type: 'string' },
            episodes: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  },
};

/** The model's chain over the project's provider, priced by the operator's price file. */
async function chainOf(ctx: PhaseContext, models: string[]): Promise<ModelChain> {
  const { apiKey } = await resolveModelApiKey(ctx.deps.adapters.store, ctx.job.project_id, ctx.deps.config);
  return new ModelChain(new OpenAiModelClient({ baseUrl: ctx.deps.config.openaiBaseUrl, apiKey }), models, {
    prices: priceTable(ctx.deps.config.modelPricesFile),
  });
}

export interface ProposalRequest {
  models: string[];
  profile: ProfileText & { label: string };
  tools: string[];
  findings: Findings;
  briefs: EpisodeBrief[];
  ruleChanges: Change[];
}

/**
 * Asks the model for the profile's next version (docs/improvements.md, With a model). The
 * prompt holds only the profile, the tools and the train/dev briefs (at most
 * MAX_MODEL_EPISODES); every call is spent on the job, so `budget_usd` binds. An unusable
 * answer (not the JSON asked for, an empty or oversized prompt) goes back to the model once
 * with what was wrong.
 *
 * @throws ServiceError('unavailable') when no usable answer came; the chain's ModelCallError
 *   when every model failed; BudgetReached (from `ctx.spend`) at the job's budget.
 */
export async function proposeWithModel(ctx: PhaseContext, req: ProposalRequest): Promise<ModelProposal> {
  const chain = await chainOf(ctx, req.models);
  const allowedIds = new Set(req.briefs.map((b) => b.episode_id));
  const shown = req.briefs.slice(0, MAX_MODEL_EPISODES);
  const messages: ModelMessage[] = [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: JSON.stringify({
        profile: {
          label: req.profile.label,
          system_prompt: req.profile.system_prompt,
          tool_guidance: req.profile.tool_guidance ?? {},
        },
        tools: req.tools,
        episodes_read: req.findings.episodes,
        episodes: shown,
        episodes_not_shown: req.briefs.length - shown.length,
        rule_suggestions: req.ruleChanges.map((c) => ({ field: c.field, change: c.change, reason: c.reason })),
      }),
    },
  ];
  let cost = 0;
  let calls = 0;
  let problem = '';
  for (let round = 0; round <= REPAIR_ROUNDS; round++) {
    await ctx.stopIfRequested();
    const res = await chain.complete({ messages: [...messages], json_schema: ANSWER, temperature: 0, seed: 0 });
    calls += 1;
    cost += res.cost_usd;
    await ctx.spend(res.cost_usd);
    const got = readAnswer(res.message.content, req.tools, allowedIds);
    if (typeof got !== 'string') {
      return {
        ...got,
        model: {
          chain: req.models,
          answered_by: res.model,
          calls,
          cost_usd: Math.round(cost * 1e6) / 1e6,
        },
      };
    }
    problem = got;
    await ctx.emit('job.progress', `the model's proposal was unusable: ${problem}`, {
      phase: 'analyse',
      completed: round + 1,
      total: REPAIR_ROUNDS + 1,
    });
    messages.push(
      { role: 'assistant', content: res.message.content ?? '' },
      { role: 'user', content: `That answer cannot be used: ${problem}. Answer again with the whole JSON object.` },
    );
  }
  throw new ServiceError(
    'unavailable',
    `the improvement model gave no usable proposal after ${REPAIR_ROUNDS + 1} answers: ${problem}`,
  );
}

/** The proposal in a model's answer, or a sentence saying why it cannot be used. */
export function readAnswer(
  content: string | null,
  tools: string[],
  allowedIds: Set<string>,
): Omit<ModelProposal, 'model'> | string {
  let v: unknown;
  try {
    v = JSON.parse((content ?? '').replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, ''));
  } catch {
    return 'it is not JSON';
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'it is not a JSON object';
  const a = v as { system_prompt?: unknown; tool_guidance?: unknown; changes?: unknown };
  if (typeof a.system_prompt !== 'string' || a.system_prompt.trim() === '') return 'system_prompt is missing or empty';
  if (a.system_prompt.length > MAX_PROMPT_CHARS) return `system_prompt is longer than ${MAX_PROMPT_CHARS} characters`;
  const known = new Set(tools);
  const guidance: Record<string, string> = {};
  for (const g of Array.isArray(a.tool_guidance) ? (a.tool_guidance as unknown[]) : []) {
    const { tool, guidance: text } = (g ?? {}) as { tool?: unknown; guidance?: unknown };
    if (typeof tool !== 'string' || typeof text !== 'string' || text.trim() === '') continue;
    if (!known.has(tool)) return `tool_guidance names "${tool.slice(0, 80)}", which is not one of the tools listed`;
    if (text.length > MAX_GUIDANCE_CHARS)
      return `the guidance of ${tool} is longer than ${MAX_GUIDANCE_CHARS} characters`;
    guidance[tool] = text.trim();
  }
  const changes: Change[] = [];
  for (const c of Array.isArray(a.changes) ? (a.changes as unknown[]) : []) {
    const { field, change, reason, episodes } = (c ?? {}) as Record<string, unknown>;
    if (typeof field !== 'string' || typeof change !== 'string' || typeof reason !== 'string') continue;
    if (field !== 'system_prompt' && !(field.startsWith('tool_guidance.') && known.has(field.slice(14)))) continue;
    // only episodes the model was allowed to read can be cited: anything else is dropped
    const cited = [...new Set(Array.isArray(episodes) ? episodes : [])].filter(
      (id): id is string => typeof id === 'string' && allowedIds.has(id),
    );
    changes.push({
      field,
      change: change.slice(0, MAX_GUIDANCE_CHARS),
      reason: reason.slice(0, 2000),
      evidence: { episodes: cited.slice(0, MAX_IDS), count: cited.length },
    });
  }
  return {
    text: {
      system_prompt: a.system_prompt.trim(),
      tool_guidance: Object.keys(guidance).length > 0 ? guidance : null,
    },
    changes,
  };
}

/** Whether two profile texts say the same (a proposal equal to the base changes nothing). */
export function sameText(a: ProfileText, b: ProfileText): boolean {
  const g = (t: ProfileText) => JSON.stringify(Object.entries(t.tool_guidance ?? {}).sort());
  return a.system_prompt.trim() === b.system_prompt.trim() && g(a) === g(b);
}
