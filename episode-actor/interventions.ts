import { ServiceError, type FieldProblem, ValidationFailedError } from '../core/index.js';
import { isBuiltinTool } from '../world/index.js';
import { clip, type EpisodeCore } from './core.js';
import { ToolProxy } from './tool-proxy.js';
import { completeHolder, toolNamesFor } from './turns.js';
import type { EpisodeState, EpisodeWorld, FaultMode } from './types.js';

export const INTERVENTION_KINDS = ['customer_message', 'goal_change', 'fault', 'revoke_tool', 'grant_tool'] as const;
export const FAULT_MODES: readonly FaultMode[] = ['drop_response', 'error', 'timeout_before', 'rate_limit'];

/** POST /v1/episodes/{id}/interventions, as the spec names its fields. */
export interface InterventionInput {
  kind: string;
  text?: string;
  goal_version?: number;
  tool?: string;
  fault_mode?: string;
  role?: string;
  count?: number;
}

export type Intervention =
  | { kind: 'customer_message'; text: string }
  | { kind: 'goal_change'; text: string; goal_version: number }
  | { kind: 'fault'; tool: string; fault_mode: FaultMode; count: number }
  | { kind: 'revoke_tool' | 'grant_tool'; tool: string; role: string };

/**
 * Checks an intervention against the running episode: 409 `episode is not running` after
 * it ended; 422 listing every missing or wrong field otherwise (e.g. a fault without
 * `tool`, an unknown role, a goal version not ahead of the current one, `complete` granted
 * while another role holds it).
 */
export function validateIntervention(st: EpisodeState, world: EpisodeWorld, input: InterventionInput): Intervention {
  if (st.status !== 'running') throw new ServiceError('conflict', 'episode is not running');
  const problems: FieldProblem[] = [];
  const need = (field: 'text' | 'tool' | 'role' | 'fault_mode'): string => {
    const v = input[field];
    if (typeof v !== 'string' || v.trim() === '')
      problems.push({ field, message: `is required for kind ${input.kind}` });
    return typeof v === 'string' ? v : '';
  };
  const appTool = (tool: string) => world.tools.some((t) => t.name === tool);
  let out: Intervention | null = null;
  switch (input.kind) {
    case 'customer_message':
      out = { kind: 'customer_message', text: need('text') };
      break;
    case 'goal_change': {
      const text = need('text');
      const gv = input.goal_version ?? st.goal_version + 1;
      if (!Number.isInteger(gv) || gv <= st.goal_version)
        problems.push({
          field: 'goal_version',
          message: `must be greater than the current goal version ${st.goal_version}`,
        });
      out = { kind: 'goal_change', text, goal_version: gv };
      break;
    }
    case 'fault': {
      const tool = need('tool');
      const mode = need('fault_mode');
      if (tool && !appTool(tool))
        problems.push({
          field: 'tool',
          message: `"${tool}" is not a tool of this application (faults hit application calls)`,
        });
      if (mode && !FAULT_MODES.includes(mode as FaultMode))
        problems.push({ field: 'fault_mode', message: `must be one of ${FAULT_MODES.join(', ')}` });
      const count = input.count ?? 1;
      if (!Number.isInteger(count) || count < 1)
        problems.push({ field: 'count', message: 'must be an integer of at least 1' });
      out = { kind: 'fault', tool, fault_mode: mode as FaultMode, count };
      break;
    }
    case 'revoke_tool':
    case 'grant_tool': {
      const tool = need('tool');
      const role = need('role');
      if (role && !st.actors[role])
        problems.push({
          field: 'role',
          message: `"${role}" is not a role of this world (roles: ${st.role_order.join(', ')})`,
        });
      else if (tool && role) {
        const offered = toolNamesFor(st, world, role);
        if (input.kind === 'revoke_tool' && !offered.includes(tool))
          problems.push({ field: 'tool', message: `"${tool}" is not offered to ${role}` });
        if (input.kind === 'grant_tool') {
          if (!appTool(tool) && !isBuiltinTool(tool))
            problems.push({
              field: 'tool',
              message: `"${tool}" is neither a tool of this application nor a built-in tool`,
            });
          const holder = completeHolder(st, world);
          if (tool === 'complete' && holder && holder !== role)
            problems.push({
              field: 'tool',
              message: `complete is held by ${holder}; only one actor may hold it (revoke it there first)`,
            });
        }
      }
      out = { kind: input.kind, tool, role };
      break;
    }
    default:
      problems.push({ field: 'kind', message: `must be one of ${INTERVENTION_KINDS.join(', ')}` });
  }
  if (problems.length > 0 || !out)
    throw new ValidationFailedError(problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
  return out;
}

/**
 * Applies a validated intervention and queues `intervention.applied` first, then whatever
 * it caused (customer message, goal.revised). Tool changes take effect from the next turn
 * offered; a fault hits the next `count` calls of its tool.
 */
export async function applyIntervention(core: EpisodeCore, iv: Intervention): Promise<void> {
  const st = core.state;
  core.emitLater({
    type: 'intervention.applied',
    summary: `intervention ${iv.kind}${'tool' in iv ? ` ${iv.tool}` : ''}${'text' in iv ? `: ${clip(iv.text)}` : ''}`,
    data: { ...iv },
  });
  switch (iv.kind) {
    case 'customer_message':
      await core.deliverCustomer([core.customer.free(st, iv.text)]);
      return;
    case 'goal_change':
      await core.deliverCustomer([core.customer.goalChange(st, iv.text, iv.goal_version)]);
      return;
    case 'fault':
      ToolProxy.addFault(st.proxy, iv.tool, iv.fault_mode, iv.count);
      core.emitLater({
        type: 'fault.injected',
        summary: `${iv.fault_mode} armed on the next ${iv.count} call(s) of ${iv.tool}`,
        data: { tool: iv.tool, fault_mode: iv.fault_mode, count: iv.count, source: 'intervention' },
      });
      return;
    case 'revoke_tool': {
      const a = st.actors[iv.role]!;
      a.granted = a.granted.filter((t) => t !== iv.tool);
      if (!a.revoked.includes(iv.tool)) a.revoked.push(iv.tool);
      return;
    }
    case 'grant_tool': {
      const a = st.actors[iv.role]!;
      a.revoked = a.revoked.filter((t) => t !== iv.tool);
      if (!a.granted.includes(iv.tool)) a.granted.push(iv.tool);
      return;
    }
  }
}

/**
 * Arms the scenario's fault schedule (docs/worlds.md, Fault schedules) in the tool proxy at
 * the episode's start, announcing each with `fault.injected` (`source: scenario`).
 */
export function scheduleFaults(core: EpisodeCore): void {
  const faults = core.state.scenario.faults ?? [];
  if (faults.length === 0) return;
  core.state.proxy.scheduled = faults.map((f) => ({ tool: f.tool, mode: f.mode, call: f.call }));
  for (const f of faults)
    core.emitLater({
      type: 'fault.injected',
      summary: `${f.mode} armed on call ${f.call} of ${f.tool} by the scenario`,
      data: { tool: f.tool, fault_mode: f.mode, count: 1, source: 'scenario' },
    });
}
