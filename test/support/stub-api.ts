import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An id as the service makes them (core/ids.ts): a type prefix and 32 hex digits. */
export const fakeId = (prefix: string): string => `${prefix}_${randomBytes(16).toString('hex')}`;

/** What the stub answers a request with: JSON (status 200 unless given), or a handler of its own. */
export type StubAnswer =
  { status?: number; json: unknown } | ((req: IncomingMessage, res: ServerResponse, body: string) => void);

/**
 * A stand-in for the HTTP API on a free loopback port, answering `METHOD /path` (query
 * ignored) from a table the test fills. For checks of what the CLI prints where the shape of
 * the answers matters and the service behind does not (widths, terminals, signals).
 */
export class StubApi {
  readonly routes = new Map<string, StubAnswer>();
  readonly requests: string[] = [];
  private server: Server | null = null;
  url = '';

  on(method: string, path: string, answer: StubAnswer): this {
    this.routes.set(`${method} ${path}`, answer);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const route = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
        this.requests.push(route);
        const answer = this.routes.get(route);
        if (typeof answer === 'function') return answer(req, res, body);
        res.setHeader('content-type', 'application/json');
        res.statusCode = answer ? (answer.status ?? 200) : 404;
        res.end(JSON.stringify(answer ? answer.json : { detail: `no stub for ${route}` }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** An event stream answer: these events, then the connection stays open (heartbeats) until the client goes. */
export function openStream(events: unknown[]): StubAnswer {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
    const beat = setInterval(() => res.write(': heartbeat\n\n'), 1000);
    req.on('close', () => clearInterval(beat));
    res.on('close', () => clearInterval(beat));
  };
}

/** An event stream answer that sends these events and `stream.end`, then closes. */
export function endedStream(events: unknown[]): StubAnswer {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
    res.end(
      `data: ${JSON.stringify({ event_id: events.length + 1, type: 'stream.end', data: {}, summary: 'end' })}\n\n`,
    );
  };
}
