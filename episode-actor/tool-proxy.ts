import { ServiceError } from '../core/index.js';
import type { AppTool, Json, JsonObject, ToolCaller } from '../world/index.js';
import { WorldCallFailed } from './agent-errors.js';
import { appResult, errorResult, unknownResult } from './results.js';
import type { ActionResult, FaultMode, OperationState, ProxyState } from './types.js';

/** One application call an actor asked for. */
export interface ProxyCall {
  action_index: number;
  actor: string;
  tool: string;
  args: JsonObject;
  /** The episode's goal version when the call is made (kept on the write ledger). */
  goal_version: number;
}

export interface ProxyHooks {
  /** Runs right before a write is handed to the application (the actor persists a marker). */
  beforeWrite(): Promise<void>;
}

export interface ProxyOutcome {
  result: ActionResult;
  kind: 'read' | 'write';
  /** True when this call reached the application and it answered (any status). */
  reached: boolean;
  /** The fault that hit this call, if one did. */
  fault: { mode: FaultMode; operation_id?: string } | null;
  /** The application's real answer when it reached it (even when the agent was not shown it). */
  status?: number;
  body?: Json;
}

/**
 * The tool proxy between the agent's actors and the application. It classifies calls
 * (GET tools read, the rest write), injects queued faults, keeps every write on the
 * ledger, and makes `retry_operation` idempotent: an UNKNOWN operation that happened
 * answers its original effect without calling the application again; one that did not
 * happen is carried out once.
 *
 * Faults, per call of the tool while any remain: `drop_response` carries the call out and
 * loses the answer (UNKNOWN, operation happened); `timeout_before` does not carry it out
 * (UNKNOWN, operation not happened); `error` answers 503 and `rate_limit` 429, neither
 * carried out. A retry of an operation that has not happened counts as a call of its tool.
 * A scenario's fault schedule (`ProxyState.scheduled`) hits the n-th call of a tool.
 *
 * State lives in the episode's `ProxyState`, passed to each call, so it is saved with the
 * episode; the proxy itself holds only the application client and the tool table.
 */
export class ToolProxy {
  readonly #app: ToolCaller;
  readonly #tools: Map<string, AppTool>;

  constructor(app: ToolCaller, tools: AppTool[]) {
    this.#app = app;
    this.#tools = new Map(tools.map((t) => [t.name, t]));
  }

  isAppTool(name: string): boolean {
    return this.#tools.has(name);
  }

  kind(name: string): 'read' | 'write' | undefined {
    return this.#tools.get(name)?.kind;
  }

  /** Queues `count` faults of one mode for the next calls of `tool`. */
  static addFault(ps: ProxyState, tool: string, mode: FaultMode, count: number): void {
    ps.faults.push({ tool, mode, remaining: count });
  }

  /** Whether `retry_operation(operationId)` would hand a write to the application. */
  static retryWouldWrite(
    ps: ProxyState,
    operationId: string,
    kind: (tool: string) => 'read' | 'write' | undefined,
  ): boolean {
    const op = ps.operations.find((o) => o.id === operationId);
    return !!op && op.happened === false && kind(op.tool) === 'write';
  }

  /** Carries out one application call through the fault pipeline. */
  async call(ps: ProxyState, c: ProxyCall, hooks: ProxyHooks): Promise<ProxyOutcome> {
    return this.#run(ps, c, hooks, null);
  }

  /** `retry_operation`: the original effect, or the operation carried out once. */
  async retry(
    ps: ProxyState,
    c: Omit<ProxyCall, 'tool' | 'args'>,
    operationId: string,
    hooks: ProxyHooks,
  ): Promise<ProxyOutcome> {
    const op = ps.operations.find((o) => o.id === operationId);
    if (!op)
      return {
        result: errorResult(`unknown operation_id "${operationId}"`),
        kind: 'read',
        reached: false,
        fault: null,
      };
    const kind = this.kind(op.tool) ?? 'write';
    if (op.happened === true) {
      return {
        result: appResult(op.status!, op.body ?? null),
        kind,
        reached: false,
        fault: null,
        status: op.status,
        body: op.body,
      };
    }
    if (op.happened === null) {
      return {
        result: errorResult(
          `the outcome of operation ${op.id} could not be established (the service restarted during the call); read the state to check instead of retrying`,
        ),
        kind,
        reached: false,
        fault: null,
      };
    }
    return this.#run(ps, { ...c, tool: op.tool, args: op.args }, hooks, op);
  }

  async #run(ps: ProxyState, c: ProxyCall, hooks: ProxyHooks, op: OperationState | null): Promise<ProxyOutcome> {
    const kind = this.kind(c.tool);
    if (!kind)
      return {
        result: errorResult(`"${c.tool}" is not a tool of this application`),
        kind: 'read',
        reached: false,
        fault: null,
      };
    const fault = takeFault(ps, c.tool);
    if (fault === 'error')
      return {
        result: appResult(503, {
          error: 'service_unavailable',
          message: 'the service failed while handling the request; nothing was changed',
        }),
        kind,
        reached: false,
        fault: { mode: fault },
      };
    if (fault === 'rate_limit')
      return {
        result: appResult(429, { error: 'rate_limited', message: 'too many requests; wait and try again' }),
        kind,
        reached: false,
        fault: { mode: fault },
      };
    if (fault === 'timeout_before') {
      const o = op ?? newOperation(ps, c);
      return { result: unknownResult(o.id, kind), kind, reached: false, fault: { mode: fault, operation_id: o.id } };
    }
    if (kind === 'write') await hooks.beforeWrite();
    let res: { status: number; body: Json };
    try {
      // a write on a connection of its own: a drop under it is this call crashing the world (agent-errors.ts)
      res = await this.#app.call(c.tool, c.args, { ownConnection: kind === 'write' });
    } catch (err) {
      // a malformed call never left the proxy; anything else is the world failing
      if (err instanceof ServiceError && err.code === 'bad_request')
        return { result: errorResult(err.message), kind, reached: false, fault: fault ? { mode: fault } : null };
      throw new WorldCallFailed(err);
    }
    if (kind === 'write') {
      ps.writes.push({
        action_index: c.action_index,
        actor: c.actor,
        tool: c.tool,
        args: c.args,
        status: res.status,
        via: op ? 'retry_operation' : 'call',
        goal_version: c.goal_version,
      });
    }
    if (op) Object.assign(op, { happened: true, status: res.status, body: res.body });
    if (fault === 'drop_response') {
      const o = op ?? newOperation(ps, c, res);
      return {
        result: unknownResult(o.id, kind),
        kind,
        reached: true,
        fault: { mode: fault, operation_id: o.id },
        status: res.status,
        body: res.body,
      };
    }
    return {
      result: appResult(res.status, res.body),
      kind,
      reached: true,
      fault: null,
      status: res.status,
      body: res.body,
    };
  }
}

/**
 * The fault this call of `tool` meets: the scenario's scheduled fault on this call number
 * first (every call counts, retries of an operation that did not happen included), else
 * the next queued fault of an intervention.
 */
function takeFault(ps: ProxyState, tool: string): FaultMode | null {
  if (ps.scheduled && ps.scheduled.length > 0) {
    ps.tool_calls ??= {};
    const n = (ps.tool_calls[tool] ?? 0) + 1;
    ps.tool_calls[tool] = n;
    const hit = ps.scheduled.find((f) => f.tool === tool && f.call === n);
    if (hit) return hit.mode;
  }
  const i = ps.faults.findIndex((f) => f.tool === tool && f.remaining > 0);
  if (i < 0) return null;
  const f = ps.faults[i]!;
  f.remaining--;
  if (f.remaining <= 0) ps.faults.splice(i, 1);
  return f.mode;
}

function newOperation(ps: ProxyState, c: ProxyCall, res?: { status: number; body: Json }): OperationState {
  ps.op_seq++;
  const op: OperationState = {
    id: `op_${ps.op_seq}`,
    actor: c.actor,
    tool: c.tool,
    args: c.args,
    happened: res !== undefined,
  };
  if (res) Object.assign(op, { status: res.status, body: res.body });
  ps.operations.push(op);
  return op;
}
