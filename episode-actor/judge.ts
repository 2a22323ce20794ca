import type { ModelChain } from '../core/index.js';
import { substitute, type Check, type CheckResult, type Json, type ToldCheck } from '../world/index.js';
import type { Judgement } from './oracle-types.js';
import type { EpisodeState } from './types.js';

/** One question to a judge: a written rubric over the episode's transcript. */
export interface JudgeQuestion {
  rubric: string;
  /** The conversation between the customer and the agent, one `who: text` line each. */
  transcript: string;
  /** The application's policies, for policy checks. */
  policies: string;
}

export interface JudgeVerdict {
  passed: boolean;
  reason: string;
  model: string;
  cost_usd: number;
}

/**
 * Judges what substring matching cannot: whether the agent told the customer something in
 * any words, and whether it kept the application's policies (docs/worlds.md, Checks).
 * Promise: resolves with a verdict and its reason, or rejects (the oracle then keeps the
 * matching's result and records why).
 */
export interface Judge {
  readonly model: string;
  judge(q: JudgeQuestion, signal?: AbortSignal): Promise<JudgeVerdict>;
}

const VERDICT_SCHEMA = {
  type: 'object',
  properties: { passed: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['passed', 'reason'],
  additionalProperties: false,
};

/** A judge over a model chain: temperature 0, a fixed seed, a strict JSON verdict. */
export class ModelJudge implements Judge {
  readonly model: string;
  readonly #chain: ModelChain;

  constructor(chain: ModelChain) {
    this.#chain = chain;
    this.model = chain.models.join(',');
  }

  async judge(q: JudgeQuestion, signal?: AbortSignal): Promise<JudgeVerdict> {
    const res = await this.#chain.complete({
      temperature: 0,
      seed: 1,
      json_schema: { name: 'verdict', schema: VERDICT_SCHEMA },
      ...(signal ? { signal } : {}),
      messages: [
        {
          role: 'system',
          content:
            'You judge one criterion about a customer-support conversation between an agent and a customer. ' +
            'Apply the rubric literally; meaning counts, not wording. Answer with JSON {"passed": boolean, "reason": one sentence}.',
        },
        {
          role: 'user',
          content: [
            `Rubric: ${q.rubric}`,
            q.policies ? `The application's policies:\n${q.policies}` : '',
            `Conversation:\n${q.transcript || '(no messages)'}`,
          ]
            .filter(Boolean)
            .join('\n\n'),
        },
      ],
    });
    const parsed = JSON.parse(res.message.content ?? '') as { passed?: unknown; reason?: unknown };
    if (typeof parsed.passed !== 'boolean') throw new Error('the judge answered without a boolean "passed"');
    return {
      passed: parsed.passed,
      reason: typeof parsed.reason === 'string' ? parsed.reason.slice(0, 500) : '',
      model: res.model,
      cost_usd: res.cost_usd,
    };
  }
}

/** The rubric of a told check: its own, else one written from its strings. */
export function toldRubric(c: ToldCheck): string {
  if (c.rubric) return c.rubric;
  const parts = [];
  if (c.contains.length)
    parts.push(`the agent told the customer each of: ${c.contains.map((s) => `"${s}"`).join(', ')}`);
  if (c.not_contains?.length)
    parts.push(`the agent never told the customer any of: ${c.not_contains.map((s) => `"${s}"`).join(', ')}`);
  return `Passes when ${parts.join(', and ')} (in any words with the same meaning).`;
}

/** The customer-agent conversation of an episode, as the judge reads it. */
export function transcriptOf(st: EpisodeState): string {
  return st.messages
    .filter((m) => m.from === 'customer' || m.to === 'customer')
    .map((m) => `${m.from === 'customer' ? 'customer' : `agent (${m.from})`}: ${m.text}`)
    .join('\n');
}

/**
 * Puts the judge over the told and policy checks (`checks` and `results` in the same
 * order; `checks` as written, before substitution, is fine: only kinds and rubrics are
 * read). A told check takes the judge's verdict, its matching result kept in `observed`;
 * a policy check is judged or, without a judge or when the judge fails, left out of the
 * results. Every verdict (or failure) goes into the returned judgements.
 */
export async function judgeChecks(
  checks: Check[],
  results: CheckResult[],
  ctx: { judge: Judge | null; st: EpisodeState; policies: string; vars: Record<string, unknown>; signal?: AbortSignal },
): Promise<{ results: CheckResult[]; judgements: Judgement[] }> {
  const out: CheckResult[] = [];
  const judgements: Judgement[] = [];
  const transcript = transcriptOf(ctx.st);
  for (const [i, r] of results.entries()) {
    let c = checks[i]!;
    try {
      c = substitute(c, ctx.vars);
    } catch {
      // the matching already failed this check for its unresolved reference; the rubric stays as written
    }
    if (c.kind !== 'told' && c.kind !== 'policy') {
      out.push(r);
      continue;
    }
    const rubric = c.kind === 'told' ? toldRubric(c) : c.rubric;
    if (!ctx.judge) {
      if (c.kind === 'policy')
        judgements.push({ check: c.name, kind: c.kind, rubric, model: null, passed: null, reason: 'no judge model' });
      else out.push(r);
      continue;
    }
    try {
      const v = await ctx.judge.judge({ rubric, transcript, policies: ctx.policies }, ctx.signal);
      judgements.push({
        check: c.name,
        kind: c.kind,
        rubric,
        model: v.model,
        passed: v.passed,
        reason: v.reason,
        cost_usd: v.cost_usd,
      });
      out.push({
        ...r,
        passed: v.passed,
        observed: {
          judged_by: v.model,
          reason: v.reason,
          ...(c.kind === 'told' ? { matching: r.passed, matched: r.observed } : {}),
        } as Json,
      });
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      judgements.push({
        check: c.name,
        kind: c.kind,
        rubric,
        model: ctx.judge.model,
        passed: null,
        reason: `the judge failed: ${(err as Error).message}`,
      });
      if (c.kind === 'told') out.push(r);
    }
  }
  return { results: out, judgements };
}
