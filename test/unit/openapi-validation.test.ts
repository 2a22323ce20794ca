import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { OpenAPIBackend } from 'openapi-backend';
import { OPENAPI_BACKEND_OPTIONS, toFieldProblems, type FieldProblem } from '../../gateway/validation-errors.js';

/**
 * Request validation by gateway/openapi.yaml through openapi-backend, configured exactly as
 * the gateway does (OPENAPI_BACKEND_OPTIONS): every limit of spec section 8 and field rule
 * of section 2 is rejected just outside and accepted at the edge, and every rejection names
 * the wrong field in the 422 detail list (CLARIFICATIONS.md 5).
 */

import { LIMITS, OPS, PIN, hex, str, type Body, type BodyOp, type Method } from './openapi-limits.js';

interface Req {
  method: Method;
  path: string;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

let api: OpenAPIBackend;

before(async () => {
  const definition = parse(readFileSync(path.resolve('gateway/openapi.yaml'), 'utf8'));
  api = new OpenAPIBackend({ definition, strict: true, validate: true, ...OPENAPI_BACKEND_OPTIONS });
  await api.init();
});

function validate(req: Req): { valid: boolean; problems: FieldProblem[]; coerced: Record<string, unknown> } {
  const result = api.validateRequest({
    method: req.method,
    path: req.path,
    body: req.body,
    query: req.query ?? {},
    headers: req.headers ?? (req.body === undefined ? {} : { 'content-type': 'application/json' }),
  });
  return {
    valid: result.valid,
    problems: toFieldProblems(result.errors),
    coerced: (result.coerced ?? {}) as Record<string, unknown>,
  };
}

function expectAccepted(req: Req): Record<string, unknown> {
  const { valid, problems, coerced } = validate(req);
  expect(problems, JSON.stringify(req.body ?? req.query)).to.deep.equal([]);
  expect(valid).to.equal(true);
  return coerced;
}

/** Rejected, with exactly one detail item, naming `field`. */
function expectRejected(req: Req, field: string): FieldProblem {
  const { valid, problems } = validate(req);
  expect(valid, `${JSON.stringify(req.body ?? req.query)} should be rejected`).to.equal(false);
  expect(
    problems.map((p) => p.field),
    JSON.stringify(problems),
  ).to.deep.equal([field]);
  expect(problems[0]!.message).to.be.a('string').and.not.equal('');
  return problems[0]!;
}

/** A copy of `base` with the dotted `field` set (or removed when `value` is undefined). */
function withField(base: Body, field: string, value: unknown): Body {
  const copy = structuredClone(base);
  const parts = field.split('.');
  let node = copy as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
};

describe('gateway/openapi.yaml: request validation', () => {
  describe('limits: the edge is accepted, just outside is rejected naming the field', () => {
    for (const limit of LIMITS) {
      const { op, field } = limit;
      for (const value of limit.accepted) {
        it(`${op.name} ${field} = ${show(value)} is accepted`, () => {
          expectAccepted({ method: op.method, path: op.path, body: withField(op.base, field, value) });
        });
      }
      for (const value of limit.rejected) {
        it(`${op.name} ${field} = ${show(value)} is rejected (${limit.reported ?? field})`, () => {
          expectRejected(
            { method: op.method, path: op.path, body: withField(op.base, field, value) },
            limit.reported ?? field,
          );
        });
      }
    }
  });

  describe('required fields and unknown fields', () => {
    const required: Array<[BodyOp, string]> = [
      [OPS.application, 'name'],
      [OPS.application, 'source'],
      [OPS.application, 'source.kind'],
      [OPS.application, 'source.url'],
      [OPS.application, 'source.commit'],
      [OPS.worldBuild, 'application_id'],
      [OPS.jobCommand, 'command'],
      [OPS.runCommand, 'command'],
      [OPS.scenario, 'scenario'],
      [OPS.profile, 'name'],
      [OPS.evaluation, 'world_version_id'],
      [OPS.evaluation, 'profile_ids'],
      [OPS.improvement, 'profile_id'],
      [OPS.improvement, 'run_id'],
      [OPS.intervention, 'kind'],
      [OPS.action, 'actor'],
      [OPS.action, 'tool'],
      [OPS.action, 'idempotency_key'],
      [OPS.datasetExport, 'run_ids'],
      [OPS.checkout, 'item'],
      [OPS.change, 'item'],
      [OPS.apiKey, 'name'],
      [OPS.credential, 'name'],
      [OPS.credential, 'kind'],
      [OPS.credential, 'env_var'],
      [OPS.signup, 'name'],
      [OPS.signup, 'email'],
      [OPS.signup, 'password'],
      [OPS.login, 'email'],
      [OPS.login, 'password'],
      [OPS.idp, 'credential'],
      [OPS.workspace, 'organization'],
      [OPS.cliPoll, 'device_code'],
      [OPS.credits, 'kind'],
      [OPS.credits, 'quantity'],
      [OPS.training, 'world_version_id'],
    ];
    for (const [op, field] of required) {
      it(`${op.name} without ${field} names ${field} as required`, () => {
        const problem = expectRejected(
          { method: op.method, path: op.path, body: withField(op.base, field, undefined) },
          field,
        );
        // the discriminator `source.kind` says "is required and must be a string"
        expect(problem.message).to.match(/^is required/);
      });
    }

    for (const op of Object.values(OPS) as BodyOp[]) {
      it(`${op.name} refuses an unknown field`, () => {
        const problem = expectRejected(
          { method: op.method, path: op.path, body: { ...op.base, colour: 'blue' } },
          'colour',
        );
        expect(problem.message).to.equal('is not allowed');
      });
    }

    for (const op of (Object.values(OPS) as BodyOp[]).filter((o) => o.name !== 'create_cli_login')) {
      it(`${op.name} without a body names the body`, () => {
        expectRejected(
          { method: op.method, path: op.path, body: undefined, headers: { 'content-type': 'application/json' } },
          'body',
        );
      });
    }

    it('an unknown field inside source is refused with its path', () => {
      const problem = expectRejected(
        { method: 'POST', path: '/v1/applications', body: withField(OPS.application.base, 'source.branch', 'main') },
        'source.branch',
      );
      expect(problem.message).to.equal('is not allowed');
    });
    it('a body that is not an object names the body', () => {
      expectRejected({ method: 'POST', path: '/v1/world-builds', body: ['application_id'] }, 'body');
    });
    it('a body that is not JSON names the body', () => {
      const problem = expectRejected(
        {
          method: 'POST',
          path: '/v1/world-builds',
          body: '{"application_id":',
          headers: { 'content-type': 'application/json' },
        },
        'body',
      );
      expect(problem.message).to.match(/not valid JSON/);
    });
    it('several wrong fields give one item each', () => {
      const { problems } = validate({
        method: 'POST',
        path: '/v1/world-builds',
        body: { scenario_target: 0, max_repair_rounds: 9, extra: 1 },
      });
      expect(problems.map((p) => p.field)).to.have.members([
        'application_id',
        'scenario_target',
        'max_repair_rounds',
        'extra',
      ]);
    });
  });

  describe('application source kinds', () => {
    it('local_path needs a path and takes nothing git-like', () => {
      expectAccepted({
        method: 'POST',
        path: '/v1/applications',
        body: { name: 'a', source: { kind: 'local_path', path: 'shop' } },
      });
      expectRejected(
        { method: 'POST', path: '/v1/applications', body: { name: 'a', source: { kind: 'local_path' } } },
        'source.path',
      );
      expectRejected(
        {
          method: 'POST',
          path: '/v1/applications',
          body: { name: 'a', source: { kind: 'local_path', path: 'shop', commit: hex(40) } },
        },
        'source.commit',
      );
    });
    it('upload takes no other field', () => {
      expectAccepted({ method: 'POST', path: '/v1/applications', body: { name: 'a', source: { kind: 'upload' } } });
      expectRejected(
        {
          method: 'POST',
          path: '/v1/applications',
          body: { name: 'a', source: { kind: 'upload', url: 'https://x/y' } },
        },
        'source.url',
      );
    });
    it('git keeps ref as a note', () => {
      expectAccepted({
        method: 'POST',
        path: '/v1/applications',
        body: withField(OPS.application.base, 'source.ref', 'v1.2.0'),
      });
    });
    it('an unknown kind names source.kind and lists nothing else', () => {
      const problem = expectRejected(
        { method: 'POST', path: '/v1/applications', body: { name: 'a', source: { kind: 'svn', url: 'x' } } },
        'source.kind',
      );
      expect(problem.message).to.contain('"svn"');
    });
    it('a source that is not an object names source', () => {
      expectRejected(
        { method: 'POST', path: '/v1/applications', body: { name: 'a', source: 'https://x/y' } },
        'source',
      );
    });
  });

  describe('parameters', () => {
    const page = (query: Record<string, string>): Req => ({
      method: 'GET',
      path: '/v1/streams/run_1/events/page',
      query,
    });
    it('events page limit: 1 and 1000 accepted, 0 and 1001 rejected', () => {
      expectAccepted(page({ limit: '1' }));
      expectAccepted(page({ limit: '1000' }));
      expectRejected(page({ limit: '0' }), 'query.limit');
      expectRejected(page({ limit: '1001' }), 'query.limit');
      expectRejected(page({ limit: 'many' }), 'query.limit');
    });
    it('events page cursor: 0 accepted, -1 rejected', () => {
      expectAccepted(page({ cursor: '0' }));
      expectRejected(page({ cursor: '-1' }), 'query.cursor');
      expectRejected(page({ cursor: '1.5' }), 'query.cursor');
    });
    it('stream cursor: integer >= 0, optional', () => {
      for (const p of ['/v1/jobs/job_1/events', '/v1/runs/run_1/events']) {
        expectAccepted({ method: 'GET', path: p });
        expect(
          (expectAccepted({ method: 'GET', path: p, query: { cursor: '5' } }).query as Record<string, unknown>).cursor,
        ).to.equal(5);
        expectRejected({ method: 'GET', path: p, query: { cursor: '-1' } }, 'query.cursor');
      }
    });
    it('bundle include_images is a boolean', () => {
      const bundle = (query: Record<string, string>): Req => ({
        method: 'POST',
        path: '/v1/world-versions/wv_1/bundle',
        query,
      });
      expect(
        (expectAccepted(bundle({ include_images: 'true' })).query as Record<string, unknown>).include_images,
      ).to.equal(true);
      expectRejected(bundle({ include_images: 'maybe' }), 'query.include_images');
    });
    it('compare needs run_a; run_b is optional', () => {
      expectAccepted({ method: 'GET', path: '/v1/compare', query: { run_a: 'r1' } });
      expectAccepted({ method: 'GET', path: '/v1/compare', query: { run_a: 'r1', run_b: 'r2' } });
      const problem = expectRejected({ method: 'GET', path: '/v1/compare', query: { run_b: 'r2' } }, 'query.run_a');
      expect(problem.message).to.equal('is required');
    });
    it('jobs and artifacts take a kind filter', () => {
      expectAccepted({ method: 'GET', path: '/v1/jobs', query: { kind: 'world_build' } });
      expectAccepted({ method: 'GET', path: '/v1/artifacts', query: { kind: 'dataset' } });
    });
    it('an undeclared query parameter is named', () => {
      const problem = expectRejected({ method: 'GET', path: '/v1/jobs', query: { colour: 'blue' } }, 'query.colour');
      expect(problem.message).to.equal('is not allowed');
    });
    it('terminal sign-in decision is approve or deny', () => {
      expectAccepted({ method: 'POST', path: '/v1/cli/logins/ABCD-EFGH/approve' });
      expectAccepted({ method: 'POST', path: '/v1/cli/logins/ABCD-EFGH/deny' });
      expectRejected({ method: 'POST', path: '/v1/cli/logins/ABCD-EFGH/maybe' }, 'path.decision');
    });
    it('an action result key has the idempotency key length', () => {
      expectAccepted({ method: 'GET', path: `/v1/episodes/ep_1/actions/${str(8)}` });
      expectAccepted({ method: 'GET', path: `/v1/episodes/ep_1/actions/${str(64)}` });
      expectRejected({ method: 'GET', path: `/v1/episodes/ep_1/actions/${str(7)}` }, 'path.key');
      expectRejected({ method: 'GET', path: `/v1/episodes/ep_1/actions/${str(65)}` }, 'path.key');
    });
  });

  describe('defaults and coercion (OPENAPI_BACKEND_OPTIONS)', () => {
    const filled = (op: BodyOp, body: Body = structuredClone(op.base)): Body => {
      expectAccepted({ method: op.method, path: op.path, body });
      return body; // defaults are filled into the very object passed in
    };
    it('world build options', () => {
      expect(filled(OPS.worldBuild)).to.deep.equal({
        application_id: 'app_1',
        auto_approve: true,
        scenario_target: 8,
        max_repair_rounds: 2,
        check_determinism: true,
      });
    });
    it('given values are kept', () => {
      expect(filled(OPS.worldBuild, { application_id: 'a', scenario_target: 3, auto_approve: false })).to.include({
        scenario_target: 3,
        auto_approve: false,
        max_repair_rounds: 2,
      });
    });
    it('application', () => {
      expect(filled(OPS.application)).to.include({ policies: '', notes: '', connection_mode: 'source' });
    });
    it('agent profile', () => {
      expect(filled(OPS.profile)).to.include({
        system_prompt: '',
        temperature: 0.2,
        max_turns_per_actor: 25,
        driver: 'llm',
      });
    });
    it('evaluation', () => {
      const body = filled(OPS.evaluation);
      expect(body).to.include({ repeats: 2, default_stress: true });
      expect(body.splits).to.deep.equal(['train', 'dev', 'holdout']);
    });
    it('intervention count', () => {
      expect(filled(OPS.intervention)).to.include({ count: 1 });
    });
    it('dataset export', () => {
      const body = filled(OPS.datasetExport);
      expect(body.splits).to.deep.equal(['train']);
      expect(body.verified_only).to.equal(true);
    });
    it('checkout quantity', () => {
      expect(filled(OPS.checkout)).to.include({ quantity: 1 });
    });
    it('a key without scopes is admin (CLARIFICATIONS.md 4)', () => {
      expect(filled(OPS.apiKey).scopes).to.deep.equal(['admin']);
    });
    it('workspace project, terminal client, credits note', () => {
      expect(filled(OPS.workspace)).to.include({ project: 'default' });
      expect(filled(OPS.cliLogin, {})).to.include({ client: '' });
      expect(filled(OPS.credits)).to.include({ note: '' });
    });
    it('training job', () => {
      expect(filled(OPS.training)).to.include({ rounds: 2, rollouts_per_scenario: 4, hosted_gpu: 'a100-80gb' });
      expect(filled(OPS.training)).to.have.property('base_model').that.is.a('string').and.not.empty;
      expect(filled(OPS.training)).to.have.property('serve_base_url').that.is.a('string').and.not.empty;
    });
    it('a default list is a fresh copy for each request', () => {
      const a = filled(OPS.datasetExport);
      (a.splits as string[]).push('dev');
      expect(filled(OPS.datasetExport).splits).to.deep.equal(['train']);
    });
    it('the terminal sign-in start needs no body', () => {
      expectAccepted({ method: 'POST', path: '/v1/cli/logins' });
    });
    it('query limit=10 becomes the number 10, and the page defaults fill in', () => {
      const coerced = expectAccepted({ method: 'GET', path: '/v1/streams/run_1/events/page', query: { limit: '10' } });
      expect(coerced.query).to.deep.equal({ limit: 10, cursor: 0 });
      expect(expectAccepted({ method: 'GET', path: '/v1/streams/run_1/events/page' }).query).to.deep.equal({
        cursor: 0,
        limit: 500,
      });
    });
    it('include_images defaults to false', () => {
      expect(expectAccepted({ method: 'POST', path: '/v1/world-versions/wv_1/bundle' }).query).to.deep.equal({
        include_images: false,
      });
    });
    it('the JSON body is not coerced: "8" is not an integer', () => {
      expectRejected(
        { method: 'POST', path: '/v1/world-builds', body: { application_id: 'a', scenario_target: '8' } },
        'scenario_target',
      );
    });
  });

  describe('multipart upload and raw webhook', () => {
    const multipart = { 'content-type': 'multipart/form-data; boundary=----x' };
    it('the upload validates the text fields multer leaves (the file is checked by the handler)', () => {
      expectAccepted({ method: 'POST', path: '/v1/applications/app_1/source', body: {}, headers: multipart });
      expectRejected(
        { method: 'POST', path: '/v1/applications/app_1/source', body: { note: 'x' }, headers: multipart },
        'note',
      );
    });
    it('the webhook takes any raw body', () => {
      expectAccepted({
        method: 'POST',
        path: '/v1/billing/webhook',
        body: Buffer.from('{"id":"evt_1"}'),
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc' },
      });
    });
  });
});

describe('toFieldProblems', () => {
  it('names body fields by dotted path, parameters with their section', () => {
    expect(
      toFieldProblems([
        { keyword: 'pattern', instancePath: '/requestBody/source/commit', params: { pattern: '^x$' } },
        { keyword: 'maximum', instancePath: '/query/limit', params: { comparison: '<=', limit: 1000 } },
        { keyword: 'enum', instancePath: '/path/decision', params: { allowedValues: ['approve', 'deny'] } },
        { keyword: 'type', instancePath: '/requestBody/splits/0', params: { type: 'string' } },
      ]),
    ).to.deep.equal([
      { field: 'source.commit', message: 'must match the pattern ^x$' },
      { field: 'query.limit', message: 'must be at most 1000' },
      { field: 'path.decision', message: 'must be one of: approve, deny' },
      { field: 'splits.0', message: 'must be a string' },
    ]);
  });
  it('names the missing property of a required error and the body when the body is missing', () => {
    expect(
      toFieldProblems([
        { keyword: 'required', instancePath: '/requestBody/source', params: { missingProperty: 'commit' } },
        { keyword: 'required', instancePath: '', params: { missingProperty: 'requestBody' } },
        { keyword: 'required', instancePath: '/query', params: { missingProperty: 'run_a' } },
      ]),
    ).to.deep.equal([
      { field: 'source.commit', message: 'is required' },
      { field: 'body', message: 'is required' },
      { field: 'query.run_a', message: 'is required' },
    ]);
  });
  it('names the extra property of an additionalProperties error', () => {
    expect(
      toFieldProblems([
        { keyword: 'additionalProperties', instancePath: '/requestBody', params: { additionalProperty: 'colour' } },
      ]),
    ).to.deep.equal([{ field: 'colour', message: 'is not allowed' }]);
  });
  it('joins the branches of an anyOf into one item for the field', () => {
    expect(
      toFieldProblems([
        {
          keyword: 'minimum',
          instancePath: '/requestBody/limits_override/builds',
          params: { comparison: '>=', limit: 0 },
        },
        { keyword: 'type', instancePath: '/requestBody/limits_override/builds', params: { type: 'null' } },
        { keyword: 'anyOf', instancePath: '/requestBody/limits_override/builds', params: {} },
      ]),
    ).to.deep.equal([{ field: 'limits_override.builds', message: 'must be at least 0 or must be null' }]);
  });
  it('unescapes JSON pointer segments', () => {
    expect(
      toFieldProblems([
        { keyword: 'pattern', instancePath: '/requestBody/images/a~1b~0c', params: { pattern: 'p' } },
      ])[0]!.field,
    ).to.equal('images.a/b~c');
  });
  it('keeps the message of an unknown keyword and answers [] for no errors', () => {
    expect(
      toFieldProblems([{ keyword: 'custom', instancePath: '/requestBody/x', params: {}, message: 'is odd' }]),
    ).to.deep.equal([{ field: 'x', message: 'is odd' }]);
    expect(toFieldProblems(null)).to.deep.equal([]);
    expect(toFieldProblems(undefined)).to.deep.equal([]);
  });
});
