import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import {
  BUILTIN_TOOLS,
  deriveTools,
  roleToolNames,
  toFunctionTool,
  toolsForRole,
  type WorldManifest,
} from '../../world/index.js';

const doc = {
  openapi: '3.0.3',
  info: { title: 'shop', version: '1' },
  components: {
    schemas: {
      Address: {
        type: 'object',
        required: ['street'],
        properties: { street: { type: 'string', example: 'x' }, zip: { type: 'string' } },
      },
    },
    parameters: { OrderId: { name: 'order_id', in: 'path', required: true, schema: { type: 'string' } } },
  },
  paths: {
    '/orders/{order_id}': {
      parameters: [{ $ref: '#/components/parameters/OrderId' }],
      get: { operationId: 'get_order', summary: 'Read one order.', description: 'With refunds.' },
      put: {
        operationId: 'update_address',
        parameters: [
          { name: 'notify', in: 'query', schema: { type: 'boolean' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Address' } } },
        },
      },
    },
    '/refunds': {
      post: {
        operationId: 'create_refund',
        summary: 'Refund.',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['order_id'],
                properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
              },
            },
          },
        },
      },
      get: {
        operationId: 'list_refunds',
        parameters: [{ name: 'order_id', in: 'query', required: true, schema: { type: 'string' } }],
      },
    },
  },
};

function problems(fn: () => unknown): Array<{ field: string; message: string }> {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal('validation_failed');
    return (err as ServiceError).details as Array<{ field: string; message: string }>;
  }
  throw new Error('expected a validation error');
}

describe('compiler: deriveTools', () => {
  const tools = deriveTools(doc, 'shop');
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));

  it('makes one tool per operation, named by operationId, GET read and the rest write', () => {
    expect(tools.map((t) => t.name)).to.deep.equal(['get_order', 'update_address', 'list_refunds', 'create_refund']);
    expect(tools.map((t) => t.kind)).to.deep.equal(['read', 'write', 'read', 'write']);
    expect(tools.every((t) => t.service === 'shop')).to.equal(true);
  });

  it('takes the description from summary and description, or method and path', () => {
    expect(byName.get_order!.description).to.equal('Read one order.\n\nWith refunds.');
    expect(byName.update_address!.description).to.equal('PUT /orders/{order_id}');
  });

  it('merges path, query and body arguments into one object schema and remembers where each goes', () => {
    const t = byName.update_address!;
    expect(t.method).to.equal('PUT');
    expect(t.path).to.equal('/orders/{order_id}');
    expect(t.args).to.deep.equal({ path: ['order_id'], query: ['notify'], body: ['street', 'zip'] });
    expect(t.parameters).to.deep.equal({
      type: 'object',
      properties: {
        order_id: { type: 'string' },
        notify: { type: 'boolean' },
        street: { type: 'string' },
        zip: { type: 'string' },
      },
      required: ['order_id', 'street'],
    });
    expect(byName.list_refunds!.parameters.required).to.deep.equal(['order_id']);
    expect(byName.create_refund!.parameters.required).to.deep.equal(['order_id']);
  });

  it('offers tools in function-calling format, with guidance appended', () => {
    const f = toFunctionTool(byName.create_refund!, 'Never twice.');
    expect(f.type).to.equal('function');
    expect(f.function.name).to.equal('create_refund');
    expect(f.function.description).to.equal('Refund.\n\nNever twice.');
    expect(f.function.parameters.properties).to.have.keys('order_id', 'amount');
  });

  it('exports the five built-ins with fixed schemas', () => {
    expect(Object.keys(BUILTIN_TOOLS)).to.deep.equal([
      'reply_to_customer',
      'send_message',
      'retry_operation',
      'wait',
      'complete',
    ]);
    expect(BUILTIN_TOOLS.send_message.function.parameters.required).to.deep.equal(['to', 'text']);
    expect(BUILTIN_TOOLS.wait.function.parameters.properties).to.deep.equal({});
  });

  it('gives a role its listed tools, then retry_operation and wait, then complete', () => {
    const manifest = {
      roles: [
        { name: 'a', instructions: 'x', tools: ['get_order', 'reply_to_customer'], complete: true },
        { name: 'b', instructions: 'y', tools: ['create_refund'], complete: false },
      ],
    } as unknown as WorldManifest;
    expect(roleToolNames(manifest.roles[0]!)).to.deep.equal([
      'get_order',
      'reply_to_customer',
      'retry_operation',
      'wait',
      'complete',
    ]);
    expect(toolsForRole(manifest, tools, 'b').map((t) => t.function.name)).to.deep.equal([
      'create_refund',
      'retry_operation',
      'wait',
    ]);
  });

  it('rejects missing operationIds, built-in names, duplicates, non-JSON bodies and unknown refs, all at once', () => {
    const bad = {
      openapi: '3.1.0',
      paths: {
        '/a': { get: { summary: 'no id' }, post: { operationId: 'complete' } },
        '/b/{id}': { get: { operationId: 'dup' }, delete: { operationId: 'dup' } },
        '/c': {
          post: {
            operationId: 'form',
            requestBody: { content: { 'multipart/form-data': { schema: { type: 'object' } } } },
          },
        },
        '/d': { get: { operationId: 'r', parameters: [{ $ref: '#/components/parameters/Nope' }] } },
      },
    };
    const list = problems(() => deriveTools(bad, 'svc', 'svc/openapi.yaml'));
    const text = list.map((p) => `${p.field} ${p.message}`).join('\n');
    expect(text).to.contain('svc/openapi.yaml: paths./a.get.operationId');
    expect(text).to.contain('"complete" is a built-in tool name');
    expect(text).to.contain('operationId "dup" is used twice');
    expect(text).to.contain('path template variable {id} has no path parameter');
    expect(text).to.contain('only an application/json body');
    expect(text).to.contain('#/components/parameters/Nope does not resolve');
  });

  it('rejects a document that is not OpenAPI 3', () => {
    const list = problems(() => deriveTools({ swagger: '2.0', paths: {} }, 'svc'));
    expect(list[0]!.field).to.equal('svc openapi: openapi');
  });
});
