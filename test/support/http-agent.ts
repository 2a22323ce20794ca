/**
 * An external agent written only against the HTTP API (spec section 4, "Bring your own
 * agent"): fetch and JSON, nothing imported from the service. It reads waiting turns,
 * sends one action per turn under its own idempotency keys, and polls results by key.
 */

export interface Turn {
  actor: string;
  new: Array<{ role: string; content: string; name?: string }>;
  goal_version_observed: number;
  tools: Array<{
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
}

export interface ActionResult {
  outcome: string;
  content: string;
  status?: number;
  body?: any;
  operation_id?: string;
}

export interface Answer {
  status: number;
  body: any;
}

/** The HTTP side of an external agent, with one API key (an `agent`-scope key is enough). */
export class AgentClient {
  #seq = 0;
  constructor(
    readonly baseUrl: string,
    readonly key: string,
    readonly prefix = `k${Math.random().toString(36).slice(2, 8)}`,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** A fresh idempotency key (8 to 64 characters). */
  newKey(): string {
    return `${this.prefix}-${++this.#seq}-${Date.now().toString(36)}`;
  }

  observation(episodeId: string): Promise<Answer> {
    return this.call('GET', `/v1/episodes/${episodeId}/observation`);
  }

  /** Polls the observation (every `pollMs`) until a turn waits or the episode is no longer running. */
  async nextTurn(episodeId: string, timeoutMs = 60_000, pollMs = 25): Promise<{ status: string; turn: Turn | null }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.observation(episodeId);
      if (r.status !== 200) throw new Error(`observation answered ${r.status}: ${JSON.stringify(r.body)}`);
      if (r.body.awaiting_action) return { status: r.body.episode_status, turn: r.body.turn.data };
      if (r.body.episode_status !== 'running' && r.body.episode_status !== 'queued')
        return { status: r.body.episode_status, turn: null };
      if (Date.now() > deadline) throw new Error(`no turn of episode ${episodeId} in time`);
      await new Promise((res) => setTimeout(res, pollMs));
    }
  }

  act(
    episodeId: string,
    action: { actor: string; tool: string; args?: Record<string, unknown>; idempotency_key: string },
  ): Promise<Answer> {
    return this.call('POST', `/v1/episodes/${episodeId}/actions`, action);
  }

  result(episodeId: string, key: string): Promise<Answer> {
    return this.call('GET', `/v1/episodes/${episodeId}/actions/${key}`);
  }

  /** Polls an action's result by key until it is `done`. */
  async waitResult(episodeId: string, key: string, timeoutMs = 60_000): Promise<ActionResult> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.result(episodeId, key);
      if (r.status !== 200) throw new Error(`action result answered ${r.status}: ${JSON.stringify(r.body)}`);
      if (r.body.status === 'done') return r.body.result;
      if (Date.now() > deadline) throw new Error(`action ${key} of ${episodeId} still pending`);
      await new Promise((res) => setTimeout(res, 10));
    }
  }

  /** Sends one action and waits for its result. */
  async step(
    episodeId: string,
    actor: string,
    tool: string,
    args: Record<string, unknown> = {},
  ): Promise<ActionResult> {
    const key = this.newKey();
    const r = await this.act(episodeId, { actor, tool, args, idempotency_key: key });
    if (r.status !== 202) throw new Error(`${actor} ${tool} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return this.waitResult(episodeId, key);
  }
}

/** The application's answer inside a tool result (`{"status": 200, "body": {...}}`). */
export function appBody(r: ActionResult): any {
  if (r.body !== undefined) return r.body;
  try {
    return JSON.parse(r.content).body;
  } catch {
    return null;
  }
}
