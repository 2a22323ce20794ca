import { judgeChecks, type Judge, type MessageRecord } from '../../episode-actor/index.js';
import type { CalibrationJudge } from '../../world/index.js';

/**
 * A build's judge for the judge-addressing calibration agent (world/judge-calibration.ts):
 * the agent's words go to `judge` as an episode's would (episode-actor/judge.ts,
 * judgeChecks: framed as untrusted content, with the application's `policies`), in a
 * conversation of the customer's request and the agent's messages.
 */
export function calibrationJudge(judge: Judge, policies: string): CalibrationJudge {
  return {
    model: judge.model,
    judge: async (checks, results, { request, told }, vars) => {
      const message = (index: number, from: string, to: string, text: string): MessageRecord => ({
        index,
        at: new Date(0).toISOString(),
        from,
        to,
        text,
        goal_version: 1,
        kind: from === 'customer' ? 'request' : 'agent',
        after_action: 0,
      });
      const messages = [
        message(0, 'customer', 'agent', request),
        ...told.map((t, i) => message(i + 1, 'agent', 'customer', t)),
      ];
      const judged = await judgeChecks(checks, results, { judge, st: { messages }, policies, vars });
      return { results: judged.results, cost_usd: judged.judgements.reduce((n, j) => n + (j.cost_usd ?? 0), 0) };
    },
  };
}
