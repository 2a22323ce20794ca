import { expect } from 'chai';
import { LIMITS, OPS, hex, type BodyOp } from './openapi-limits.js';
import { expectAccepted, expectRejected, loadOpenApi, show, validate, withField } from './openapi-requests.js';

/**
 * Request validation by gateway/openapi.yaml through openapi-backend, configured exactly as
 * the gateway does (OPENAPI_BACKEND_OPTIONS): every limit of spec section 8 and field rule
 * of section 2 is rejected just outside and accepted at the edge, and every rejection names
 * the wrong field in the 422 detail list (CLARIFICATIONS.md 5). Parameters, defaults and
 * coercion: openapi-parameters.test.ts.
 */
describe('gateway/openapi.yaml: request validation', () => {
  before(loadOpenApi);

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
});
