/**
 * A latency-bound loopback model: an OpenAI-compatible `/v1/chat/completions` that answers
 * every call after `delayMs` with one call of the world's `wait` tool. An episode played by it
 * costs no CPU on the serving side, only wall time, so a run's speed is bound by how many
 * episodes run at once (the workers' capacity), which is what adding worker hosts adds.
 * It listens on `host` (a lab's bridge address, so roles in namespaces reach it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LatencyModel {
  /** OPENAI_BASE_URL for the roles (`http://host:port/v1`). */
  baseUrl: string;
  /** Calls answered so far. */
  calls(): number;
  close(): Promise<void>;
}

export async function startLatencyModel(host: string, delayMs = 300): Promise<LatencyModel> {
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
    let model = 'loopback';
    try {
      model = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: unknown }).model ?? model);
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'bad json' } }));
      return;
    }
    await new Promise((r) => setTimeout(r, delayMs));
    const n = ++calls;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'wait', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}/v1`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
