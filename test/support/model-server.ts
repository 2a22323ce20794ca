/**
 * A real, scriptable OpenAI-compatible HTTP server on loopback for the model tests: it
 * answers POST /v1/chat/completions like the provider does (choices, tool_calls, usage);
 * each model name can be told to fail with a status or to hang, and a scripted reply can
 * itself be a failure with headers (`status`, `headers`: a 429 with `Retry-After`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequestBody {
  model: string;
  messages: Array<{
    role: string;
    content: string | null;
    tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: object } }>;
  temperature?: number;
  tool_choice?: string;
  seed?: number;
  response_format?: { type: string; json_schema?: { name: string; schema: object; strict?: boolean } };
}

export interface ScriptedReply {
  /** Answer with this error status instead of a completion (and `headers`). */
  status?: number;
  headers?: Record<string, string>;
  content?: string | null;
  tool_call?: { name: string; arguments: Record<string, unknown> | string };
  usage?: { prompt_tokens: number; completion_tokens: number };
}

export interface ModelServer {
  baseUrl: string;
  requests: Array<{ body: ChatRequestBody; authorization: string | undefined }>;
  /** Model name -> HTTP status to answer with, or 'hang' to never answer. */
  failures: Map<string, number | 'hang'>;
  close(): Promise<void>;
}

/** Starts the server on a free loopback port; `reply` decides each successful answer. */
export async function startModelServer(reply: (body: ChatRequestBody) => ScriptedReply): Promise<ModelServer> {
  const requests: ModelServer['requests'] = [];
  const failures = new Map<string, number | 'hang'>();
  let calls = 0;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'no route' } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
    requests.push({ body, authorization: req.headers.authorization });
    const failure = failures.get(body.model);
    if (failure === 'hang') return; // never answers: the client's timeout fires
    if (failure !== undefined) {
      res
        .writeHead(failure, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `scripted failure ${failure}`, type: 'server_error' } }));
      return;
    }
    const r = reply(body);
    if (r.status !== undefined && r.status >= 400) {
      res
        .writeHead(r.status, { 'content-type': 'application/json', ...r.headers })
        .end(JSON.stringify({ error: { message: `scripted failure ${r.status}`, type: 'server_error' } }));
      return;
    }
    calls++;
    const toolCalls = r.tool_call
      ? [
          {
            id: `call_${calls}`,
            type: 'function',
            function: {
              name: r.tool_call.name,
              arguments:
                typeof r.tool_call.arguments === 'string'
                  ? r.tool_call.arguments
                  : JSON.stringify(r.tool_call.arguments),
            },
          },
        ]
      : undefined;
    const usage = r.usage ?? { prompt_tokens: 1000, completion_tokens: 50 };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${calls}`,
        object: 'chat.completion',
        created: 1_750_000_000,
        model: `${body.model}-2024-07-18`,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: r.content ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
            finish_reason: toolCalls ? 'tool_calls' : 'stop',
            logprobs: null,
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
