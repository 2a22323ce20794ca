import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { createApiBackend } from '../../gateway/openapi.js';
import { OPERATION_IDS } from './openapi-operation-ids.js';
import { ACCESS_VALUES, METHODS, loadSpecOperations, type Method } from './openapi-spec-tables.js';

/**
 * gateway/openapi.yaml against the endpoint tables of the interface spec (section 4) and
 * CLARIFICATIONS.md, as the project keeps them in test/fixtures/spec-operations.json: every
 * operation of the tables, with the access rule as `x-access`, and nothing else under /v1 but
 * the payment provider's webhook, the operator's worker administration and the identity-provider start.
 */

const DOC_FILE = path.resolve('gateway/openapi.yaml');

type Json = Record<string, unknown>;
interface DocOperation extends Json {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
  'x-access'?: string;
  'x-spends-budget'?: boolean;
  'x-not-in-spec-table'?: boolean;
}
interface Found {
  method: Method;
  path: string;
  op: DocOperation;
  pathParams: Json[];
}

const doc = parse(readFileSync(DOC_FILE, 'utf8')) as Json & {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Json>; parameters: Record<string, Json>; responses: Record<string, Json> };
};

function resolve<T = Json>(node: unknown): T {
  let n = node as Json;
  for (let i = 0; i < 10 && n && typeof n.$ref === 'string'; i++) {
    const parts = (n.$ref as string).replace(/^#\//, '').split('/');
    n = parts.reduce<Json>((acc, part) => acc[part] as Json, doc);
  }
  return n as T;
}

function operations(): Found[] {
  const out: Found[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as DocOperation | undefined;
      if (op)
        out.push({
          method,
          path: p,
          op,
          pathParams: ((item.parameters as Json[] | undefined) ?? []).map((x) => resolve(x)),
        });
    }
  }
  return out;
}

/** `/v1/a/{x}/b` -> `/v1/a/{}/b`, to compare templates by parameter position. */
const shape = (p: string): string => p.replace(/\{[^}]+\}/g, '{}');

const specRows = loadSpecOperations();
const docOps = operations();

function findOp(method: Method, p: string): Found | undefined {
  return docOps.find((o) => o.method === method && shape(o.path) === shape(p));
}

/** Every keyword name used anywhere below a node. */
function keysBelow(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => keysBelow(n, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      into.add(k);
      keysBelow(v, into);
    }
  }
  return into;
}

describe('gateway/openapi.yaml: the document', () => {
  describe('the spec tables', () => {
    it('hold exactly 72 operations, each once', () => {
      expect(specRows).to.have.length(72);
      const keys = specRows.map((r) => `${r.method} ${r.path}`);
      expect(new Set(keys).size).to.equal(72);
    });
    it('mark four operations with $', () => {
      expect(specRows.filter((r) => r.spendsBudget).map((r) => `${r.method.toUpperCase()} ${r.path}`)).to.have.members([
        'POST /v1/world-builds',
        'POST /v1/world-versions/{wv_id}/validate',
        'POST /v1/evaluations',
        'POST /v1/improvements',
      ]);
    });
    it('match the operationId table of this test one to one', () => {
      expect(specRows.map((r) => `${r.method.toUpperCase()} ${r.path}`)).to.have.members(Object.keys(OPERATION_IDS));
    });
  });

  describe('top level', () => {
    it('is OpenAPI 3.1.0 of release 0.1.2 served from /', () => {
      expect(doc.openapi).to.equal('3.1.0');
      expect((doc.info as Json).version).to.equal('0.1.2');
      expect(doc.servers).to.deep.equal([{ url: '/' }]);
    });
    it('has only /v1 paths (no /openapi.json or /api/docs)', () => {
      for (const p of Object.keys(doc.paths)) expect(p.startsWith('/v1/'), p).to.equal(true);
    });
    it('declares the bearer and session security schemes', () => {
      const schemes = (doc.components as unknown as Json).securitySchemes as Record<string, Json>;
      expect(schemes.bearer).to.include({ type: 'http', scheme: 'bearer' });
      expect(String(schemes.bearer!.bearerFormat)).to.contain('svc_');
      expect(schemes.session).to.include({ type: 'apiKey', in: 'cookie', name: 'crucible_session' });
      expect(doc.security).to.deep.equal([{ bearer: [] }, { session: [] }]);
    });
    it('uses no OpenAPI 3.0-only keyword (nullable)', () => {
      expect(keysBelow(doc).has('nullable')).to.equal(false);
    });
    it('loads in openapi-backend in strict mode without errors or warnings', async () => {
      const warnings: unknown[] = [];
      const warn = console.warn;
      console.warn = (...args: unknown[]) => void warnings.push(args);
      try {
        // as the gateway loads it (strict, its request validators compiled), from a copy of its own:
        // compiling every response validator too took over 30 s of a loaded machine's CPU
        const api = await createApiBackend(structuredClone(doc) as never);
        expect(api.initialized).to.equal(true);
        expect(api.getOperations()).to.have.length(89);
      } finally {
        console.warn = warn;
      }
      expect(warnings).to.deep.equal([]);
    });
  });

  describe('operations', () => {
    it('every spec operation is in the document with its access rule', () => {
      const problems: string[] = [];
      for (const row of specRows) {
        const found = findOp(row.method, row.path);
        if (!found) {
          problems.push(`missing ${row.method.toUpperCase()} ${row.path}`);
          continue;
        }
        if (found.path !== row.path) problems.push(`${found.path} is named differently from the spec's ${row.path}`);
        if (found.op['x-access'] !== row.access)
          problems.push(
            `${row.method.toUpperCase()} ${row.path}: x-access ${String(found.op['x-access'])}, spec ${row.access}`,
          );
      }
      expect(problems).to.deep.equal([]);
    });

    it('applies CLARIFICATIONS.md 1: reading jobs needs evaluator, commands stay write', () => {
      expect(findOp('get', '/v1/jobs')!.op['x-access']).to.equal('evaluator');
      expect(findOp('get', '/v1/jobs/{job_id}')!.op['x-access']).to.equal('evaluator');
      expect(findOp('get', '/v1/jobs/{job_id}/events')!.op['x-access']).to.equal('evaluator');
      expect(findOp('post', '/v1/jobs/{job_id}/commands')!.op['x-access']).to.equal('write');
    });

    it('applies CLARIFICATIONS.md 2: turns are read|agent, the episode record evaluator', () => {
      expect(findOp('get', '/v1/episodes/{ep_id}/observation')!.op['x-access']).to.equal('read|agent');
      expect(findOp('get', '/v1/episodes/{ep_id}/actions/{key}')!.op['x-access']).to.equal('read|agent');
      expect(findOp('get', '/v1/episodes/{ep_id}')!.op['x-access']).to.equal('evaluator');
    });

    it('uses the agreed operationIds', () => {
      const problems: string[] = [];
      for (const [key, id] of Object.entries(OPERATION_IDS)) {
        const [method, p] = key.split(' ') as [string, string];
        const found = findOp(method.toLowerCase() as Method, p);
        if (found?.op.operationId !== id) problems.push(`${key}: ${String(found?.op.operationId)} instead of ${id}`);
      }
      expect(problems).to.deep.equal([]);
    });

    it('has no other /v1 operation than the billing webhook, the operator worker administration, the identity-provider start, re-judging and the account additions', () => {
      const extra = docOps.filter(
        (o) => !specRows.some((r) => r.method === o.method && shape(r.path) === shape(o.path)),
      );
      expect(extra.map((o) => `${o.method.toUpperCase()} ${o.path}`)).to.have.members([
        'POST /v1/billing/webhook',
        'POST /v1/auth/idp/start',
        'POST /v1/episodes/{ep_id}/rejudge',
        'GET /v1/admin/workers',
        'POST /v1/admin/workers/{worker_id}/{action}',
        // issue 23: the operator's link to set a password, projects to switch between, invitations
        'POST /v1/auth/password',
        'PUT /v1/session',
        'GET /v1/memberships',
        'GET /v1/invitations',
        'POST /v1/invitations',
        'POST /v1/invitations/accept',
        'DELETE /v1/invitations/{inv_id}',
        // issue 35: members removed and re-roled, and the record of it
        'GET /v1/members',
        'PUT /v1/members/{user_id}',
        'DELETE /v1/members/{user_id}',
        'GET /v1/audit-events',
        // issue 36: an owner makes another project of the organization
        'POST /v1/projects',
      ]);
      const at = (p: string) => extra.find((o) => o.path === p)!.op;
      // issue 14: operators list, drain and undrain world-workers; a console session of an operator only
      for (const w of extra.filter((o) => o.path.startsWith('/v1/admin/workers'))) {
        expect(w.op['x-access']).to.equal('operator');
        expect(w.op['x-not-in-spec-table']).to.equal(true);
      }
      // the identity-provider start sets the cookie auth_idp holds the token's nonce against (docs/accounts.md)
      const start = at('/v1/auth/idp/start');
      expect(start.operationId).to.equal('auth_idp_start');
      expect(start['x-access']).to.equal('none');
      expect(start['x-not-in-spec-table']).to.equal(true);
      const hook = at('/v1/billing/webhook');
      expect(hook.operationId).to.equal('billing_webhook');
      expect(hook['x-access']).to.equal('none');
      expect(hook['x-not-in-spec-table']).to.equal(true);
      expect(hook.security).to.deep.equal([]);
      const content = resolve<Json>(hook.requestBody).content as Record<string, unknown>;
      expect(Object.keys(content)).to.not.include('application/json');
      const accountAdditions: Array<[string, string, string]> = [
        ['post', '/v1/auth/password', 'none'],
        ['put', '/v1/session', 'any'],
        ['get', '/v1/memberships', 'any'],
        ['get', '/v1/invitations', 'admin'],
        ['post', '/v1/invitations', 'admin'],
        ['post', '/v1/invitations/accept', 'any'],
        ['delete', '/v1/invitations/{inv_id}', 'admin'],
        ['get', '/v1/members', 'admin'],
        ['put', '/v1/members/{user_id}', 'admin'],
        ['delete', '/v1/members/{user_id}', 'admin'],
        ['get', '/v1/audit-events', 'admin'],
        ['post', '/v1/projects', 'admin'],
      ];
      for (const [method, p, access] of accountAdditions) {
        const op = extra.find((o) => o.method === method && o.path === p)!.op;
        expect(op['x-access'], `${method} ${p}`).to.equal(access);
        expect(op['x-not-in-spec-table'], `${method} ${p}`).to.equal(true);
      }
      // issue 25: re-judging the episodes whose policy checks no judge judged (docs/scoring.md, Judged checks)
      const rejudge = at('/v1/episodes/{ep_id}/rejudge');
      expect(rejudge.operationId).to.equal('rejudge_episode');
      expect(rejudge['x-access']).to.equal('write+evaluator');
      expect(rejudge['x-not-in-spec-table']).to.equal(true);
      expect(docOps.filter((o) => o.op['x-not-in-spec-table'])).to.have.length(5 + accountAdditions.length);
    });

    it('operationIds are unique and snake_case', () => {
      const ids = docOps.map((o) => o.op.operationId);
      for (const id of ids) expect(id).to.match(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids).to.have.length(89);
    });

    it('every operation has a summary, declared tags and a known x-access', () => {
      const declared = new Set(((doc.tags as Json[]) ?? []).map((t) => t.name));
      for (const { method, path: p, op } of docOps) {
        const where = `${method.toUpperCase()} ${p}`;
        expect(op.summary, where).to.be.a('string').and.not.equal('');
        expect(op.tags, where).to.be.an('array').that.is.not.empty;
        for (const tag of op.tags!) expect(declared.has(tag), `${where} tag ${tag}`).to.equal(true);
        expect(ACCESS_VALUES as readonly string[], where).to.include(op['x-access']);
      }
    });

    it('x-spends-budget is true exactly on the operations marked $', () => {
      for (const row of specRows) {
        const { op } = findOp(row.method, row.path)!;
        expect(op['x-spends-budget'] === true, `${row.method} ${row.path}`).to.equal(row.spendsBudget);
        if (!row.spendsBudget) expect(op, `${row.method} ${row.path}`).to.not.have.property('x-spends-budget');
      }
    });

    it('security follows x-access: none is open, operator takes a session only, the rest inherit key or session', () => {
      for (const { method, path: p, op } of docOps) {
        const where = `${method.toUpperCase()} ${p}`;
        if (op['x-access'] === 'none') expect(op.security, where).to.deep.equal([]);
        else if (op['x-access'] === 'operator') expect(op.security, where).to.deep.equal([{ session: [] }]);
        else expect(op, where).to.not.have.property('security');
      }
    });

    it('answers with the success status of the spec and documents the Error default', () => {
      for (const row of specRows) {
        const { op } = findOp(row.method, row.path)!;
        const where = `${row.method.toUpperCase()} ${row.path}`;
        const successes = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s));
        expect(successes, where).to.deep.equal([row.status]);
        expect(op.responses.default, where).to.deep.equal({ $ref: '#/components/responses/Error' });
      }
      const error = doc.components.schemas.Error as Json;
      expect(error.required).to.deep.equal(['detail']);
    });

    it('declares every path parameter with the spec name, required', () => {
      for (const { method, path: p, op, pathParams } of docOps) {
        const names = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const declared = [...pathParams, ...(op.parameters ?? []).map((x) => resolve(x))].filter(
          (x) => x.in === 'path',
        );
        expect(
          declared.map((x) => x.name),
          `${method} ${p}`,
        ).to.have.members(names);
        for (const d of declared) expect(d.required, `${method} ${p} ${String(d.name)}`).to.equal(true);
      }
    });

    it('request bodies are JSON objects that refuse unknown fields (upload: multipart file; webhook: raw)', () => {
      for (const { method, path: p, op } of docOps) {
        if (!op.requestBody) continue;
        const where = `${method.toUpperCase()} ${p}`;
        const body = resolve<Json>(op.requestBody);
        const content = body.content as Record<string, Json>;
        if (op.operationId === 'billing_webhook') continue;
        if (op.operationId === 'upload_application_source') {
          expect(Object.keys(content), where).to.deep.equal(['multipart/form-data']);
          const schema = resolve<Json>(content['multipart/form-data']!.schema);
          expect(schema.required).to.deep.equal(['file']);
          expect((schema.properties as Record<string, Json>).file).to.include({ type: 'string', format: 'binary' });
          expect(body.required).to.equal(true);
          continue;
        }
        expect(Object.keys(content), where).to.deep.equal(['application/json']);
        const schema = resolve<Json>(content['application/json']!.schema);
        expect(schema.type, where).to.equal('object');
        expect(schema.additionalProperties, where).to.equal(false);
        // every body is required except the terminal sign-in start and validate's options
        expect(body.required, where).to.equal(
          !['create_cli_login', 'validate_world_version'].includes(op.operationId!),
        );
      }
    });

    it('the event streams answer text/event-stream and the download application/gzip or application/octet-stream', () => {
      for (const id of ['stream_job_events', 'stream_run_events']) {
        const { op } = docOps.find((o) => o.op.operationId === id)!;
        expect(Object.keys(resolve<Json>(op.responses['200']).content as Json), id).to.deep.equal([
          'text/event-stream',
        ]);
      }
      const download = docOps.find((o) => o.op.operationId === 'download_artifact')!.op;
      // every artifact made now is gzip-compressed; octet-stream is what another kind would answer
      expect(Object.keys(resolve<Json>(download.responses['200']).content as Json)).to.deep.equal([
        'application/gzip',
        'application/octet-stream',
      ]);
    });

    it('documents the events page limit maximum of 1000 and its defaults', () => {
      const { op } = docOps.find((o) => o.op.operationId === 'get_events_page')!;
      const params = Object.fromEntries(
        (op.parameters ?? []).map((x) => resolve(x)).map((x) => [x.name, x.schema as Json]),
      );
      expect(params.limit).to.include({ type: 'integer', minimum: 1, maximum: 1000, default: 500 });
      expect(params.cursor).to.include({ type: 'integer', minimum: 0, default: 0 });
    });
  });
});
