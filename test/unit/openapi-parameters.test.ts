import { expect } from 'chai';
import { OPS, str, type Body, type BodyOp } from './openapi-limits.js';
import { expectAccepted, expectRejected, loadOpenApi, type Req } from './openapi-requests.js';

/**
 * Request validation by gateway/openapi.yaml (as openapi-validation.test.ts): path and
 * query parameters, the defaults and coercion OPENAPI_BACKEND_OPTIONS turn on, and the
 * multipart upload and raw webhook bodies.
 */
describe('gateway/openapi.yaml: request validation', () => {
  before(loadOpenApi);

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
