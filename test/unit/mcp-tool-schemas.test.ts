import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ApiClient } from '../../cli/api-client.js';
import { createMcpServer } from '../../cli/mcp/server.js';

type Tool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

/** Every place in a JSON Schema that is `{}`: a value of no stated type (MCP inspectors warn on them in arguments). */
function untyped(schema: unknown, at = '$'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  if (!Array.isArray(schema) && Object.keys(schema).length === 0) return [at];
  return Object.entries(schema).flatMap(([k, v]) => untyped(v, `${at}.${k}`));
}

/**
 * The MCP tools as a client reads them (tools/list through the SDK's own client): typed
 * arguments, annotations that say which calls are safe to retry, and output schemas that
 * the answers really meet. The API behind is a small HTTP server answering the two
 * operations take_action calls, so the answer checked is the one the tool builds.
 */
describe('MCP tools: argument schemas, annotations and output schemas', () => {
  let http: Server;
  let client: Client;
  let tools: Tool[];
  const actions: unknown[] = [];
  /** A waiting turn as the gateway answers it (world/builtin-tools.ts writes the tools so). */
  const observation = {
    episode_status: 'running',
    awaiting_action: true,
    turn: {
      data: {
        actor: 'frontline',
        goal_version_observed: 1,
        new: [{ role: 'user', content: 'My kettle broke.' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'reply_to_customer',
              description: 'Send a message to the customer.',
              parameters: {
                type: 'object',
                properties: { text: { type: 'string', description: 'the message' } },
                required: ['text'],
                additionalProperties: false,
              },
            },
          },
        ],
      },
    },
  };

  before(async () => {
    http = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && req.url === '/v1/episodes/ep_1/actions') {
          actions.push(JSON.parse(body));
          res.statusCode = 202;
          res.end(JSON.stringify({ event_id: 7, duplicate: actions.length > 1 }));
        } else if (req.method === 'GET' && req.url === '/v1/episodes/ep_1/observation') {
          res.end(JSON.stringify(observation));
        } else if (req.method === 'GET' && req.url?.startsWith('/v1/episodes/ep_1/actions/')) {
          res.end(JSON.stringify({ status: 'done', result: { outcome: 'ok', content: { order: 'o_1' } } }));
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ detail: 'not found' }));
        }
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(new ApiClient(url, 'svc_test')).connect(serverSide);
    client = new Client({ name: 'schema-reader', version: '1.0.0' });
    await client.connect(clientSide);
    tools = (await client.listTools()).tools;
  });
  after(async () => {
    await client?.close();
    await new Promise((resolve) => http?.close(resolve));
  });

  const tool = (name: string) => tools.find((t) => t.name === name)!;

  it('lists waiting_turns and take_action with every argument typed', () => {
    expect(tools.map((t) => t.name).sort()).to.deep.equal(['take_action', 'waiting_turns']);
    for (const t of tools) expect(untyped(t.inputSchema), t.name).to.deep.equal([]);
    const args = tool('take_action').inputSchema.properties!.args as { type: string; additionalProperties: unknown };
    expect(args.type).to.equal('object');
    expect(JSON.stringify(args.additionalProperties)).to.contain('"type":"string"');
  });

  it('annotates waiting_turns as a read and take_action as safe to retry (its idempotency key), not read-only', () => {
    expect(tool('waiting_turns').annotations).to.include({ readOnlyHint: true, idempotentHint: true });
    expect(tool('take_action').annotations).to.include({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });

  it('declares output schemas, and take_action answers what its schema says', async () => {
    for (const t of tools) expect(t.outputSchema, t.name).to.have.property('type', 'object');
    expect(Object.keys(tool('waiting_turns').outputSchema!.properties!)).to.have.members(['count', 'turns']);
    const answer = (await client.callTool({
      name: 'take_action',
      arguments: { episode_id: 'ep_1', actor: 'frontline', tool: 'complete', args: { summary: 'done', n: [1] } },
    })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
    expect(answer.isError, JSON.stringify(answer)).to.not.equal(true);
    expect(answer.structuredContent).to.include({ episode_id: 'ep_1', event_id: 7, duplicate: false, status: 'done' });
    const validate = new Ajv({ strict: false }).compile(tool('take_action').outputSchema!);
    expect(validate(answer.structuredContent), JSON.stringify(validate.errors)).to.equal(true);
    expect(actions[0]).to.deep.include({ actor: 'frontline', tool: 'complete', args: { summary: 'done', n: [1] } });
  });

  it('waiting_turns answers what its schema says', async () => {
    const answer = (await client.callTool({ name: 'waiting_turns', arguments: { episode_ids: ['ep_1'] } })) as {
      isError?: boolean;
      structuredContent?: { count: number; turns: Array<{ actor: string }> };
    };
    expect(answer.isError, JSON.stringify(answer)).to.not.equal(true);
    expect(answer.structuredContent!.count).to.equal(1);
    expect(answer.structuredContent!.turns[0]!.actor).to.equal('frontline');
    const validate = new Ajv({ strict: false }).compile(tool('waiting_turns').outputSchema!);
    expect(validate(answer.structuredContent), JSON.stringify(validate.errors)).to.equal(true);
  });

  it('refuses arguments that are not JSON objects before calling the API', async () => {
    const answer = (await client.callTool({
      name: 'take_action',
      arguments: { episode_id: 'ep_1', actor: 'frontline', tool: 'complete', args: 'not an object' },
    })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(answer.isError).to.equal(true);
    expect(actions).to.have.length(1);
  });
});
