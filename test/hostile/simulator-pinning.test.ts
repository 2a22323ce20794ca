import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Collections } from '../../core/collections.js';
import { buildAndWait } from '../support/builds.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { makeProfile } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, copyDir } from '../support/sources.js';

const VICTIM_KEY = 'CRUCIBLE_TEST_PINNING_VICTIM_KEY';

/**
 * A world names the customer and judge its episodes meet (world.yaml `customer.simulator`,
 * `judge`), and those models spend. A tenant without a model credential of its own must not
 * get them run on anyone else's key (the operator's, another project's) nor start a run whose
 * every episode would fail at set-up: the run is refused at creation, nothing is stored and
 * no model is called (docs/runs.md, Pinned simulators).
 */
describe('hostile: simulators a tenant cannot pay for', function () {
  this.timeout(600_000);
  let t: TestService;
  let models: ModelServer;
  let roots: string;
  let attacker: ReturnType<typeof client>;
  const versions: Record<string, string> = {};
  let profileId: string;

  before(async () => {
    models = await startModelServer(() => ({ content: JSON.stringify({ passed: true, reason: 'kept' }) }));
    roots = mkdtempSync(path.join(tmpdir(), 'crucible-pinning-'));
    const variant = (name: string, edit: (yaml: string) => string) => {
      copyDir(catalogApp('shop-support'), path.join(roots, name));
      const file = path.join(roots, name, 'world.yaml');
      writeFileSync(file, edit(readFileSync(file, 'utf8')));
    };
    variant('judged', (y) => `${y}\njudge: { model: gpt-4o-mini }\n`);
    variant('customer', (y) =>
      y.replace('customer: { channel: chat }', 'customer: { channel: chat, simulator: { model: gpt-4o-mini } }'),
    );
    t = await startTestService({ OPENAI_BASE_URL: models.baseUrl, SERVICE_SOURCE_ROOTS: roots });
    // another project of the installation has a usable model credential
    process.env[VICTIM_KEY] = 'sk-victim';
    const victim = await t.workspace('victim');
    expect(
      (
        await client(t.url, victim.key).post('/v1/credentials', {
          name: 'provider',
          kind: 'model_provider',
          env_var: VICTIM_KEY,
        })
      ).status,
    ).to.equal(201);
    const ws = await t.workspace('attacker');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    attacker = client(t.url, ws.key);
    for (const name of ['judged', 'customer']) {
      const app = await attacker.post('/v1/applications', { name, source: { kind: 'local_path', path: name } });
      expect(app.status, JSON.stringify(app.body)).to.equal(201);
      const { build, job } = await buildAndWait(attacker, { application_id: app.body.id, scenario_target: 2 });
      expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
      versions[name] = build.world_version_id;
    }
    profileId = (await makeProfile(attacker, { name: 'ref', model: 'builtin:reference' })).id;
  });
  after(async () => {
    await t?.close();
    await models?.close();
    rmSync(roots, { recursive: true, force: true });
    delete process.env[VICTIM_KEY];
  });

  const refused = async (wv: string, role: 'judge' | 'customer') => {
    const r = await attacker.post('/v1/evaluations', { world_version_id: wv, profile_ids: [profileId], repeats: 1 });
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(r.body.detail[0].field).to.equal('world_version_id');
    expect(r.body.detail[0].message).to.contain(
      `the world version's ${role} model gpt-4o-mini cannot run for this project`,
    );
    expect(r.body.detail[0].message).to.match(/no credential reference of kind model_provider/);
    expect((await attacker.get('/v1/runs')).body).to.deep.equal([]);
    expect(models.requests).to.have.length(0);
  };

  it('a world naming a judge model is refused at run creation, with another project holding a usable credential', async () => {
    await refused(versions.judged!, 'judge');
  });

  it('a world naming a customer model is refused the same way', async () => {
    await refused(versions.customer!, 'customer');
  });
});
