import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCatalogIndex } from '../../catalog/index.js';
import { Collections } from '../../core/collections.js';
import { buildAndWait } from '../support/builds.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, copyDir, git, makeGitRepo } from '../support/sources.js';

/** shop-support with order-status variant 1 looking the customer up by a wrong e-mail: its plan fails, variants 2 and 3 pass. */
function brokenFirstVariant(dir: string): void {
  copyDir(catalogApp('shop-support'), dir);
  const file = path.join(dir, 'scenarios', 'order-status.yaml');
  let text = readFileSync(file, 'utf8');
  text = text.replace(
    'tool: find_customer, args: { email: "${facts.email}" }',
    'tool: find_customer, args: { email: "${lookup}" }',
  );
  text = text.replace(
    '{ name: Dana Ruiz, email: dana.ruiz@example.com,',
    '{ lookup: nobody@example.com, name: Dana Ruiz, email: dana.ruiz@example.com,',
  );
  text = text.replace(
    '{ name: Ola Berg, email: ola.berg@example.net,',
    '{ lookup: ola.berg@example.net, name: Ola Berg, email: ola.berg@example.net,',
  );
  text = text.replace(
    '{ name: Sam Patel, email: sam.patel@example.org,',
    '{ lookup: sam.patel@example.org, name: Sam Patel, email: sam.patel@example.org,',
  );
  writeFileSync(file, text);
}

describe('world builds from git repositories and local folders, repair, and failing builds', function () {
  this.timeout(900_000);
  let t: TestService;
  let roots: string;
  let admin: ReturnType<typeof client>;
  let shopDigest: string;

  before(async () => {
    roots = mkdtempSync(path.join(tmpdir(), 'crucible-build-roots-'));
    t = await startTestService({ SERVICE_SOURCE_ROOTS: roots, SANDBOX_TRUST_TENANT_CODE: 'true' });
    const ws = await t.workspace('Sources');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    shopDigest = (await readCatalogIndex()).find((e) => e.name === 'shop-support')!.digest;
  });
  after(async () => {
    await t?.close();
    rmSync(roots, { recursive: true, force: true });
  });

  const app = async (name: string, source: Record<string, unknown>) => {
    const r = await admin.post('/v1/applications', { name, source });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };

  it('git at the pinned commit, a local folder and an upload of the same source publish the same content hash', async () => {
    const repoDir = path.join(roots, 'shop-git');
    const repo = makeGitRepo(repoDir, catalogApp('shop-support'));
    // a later commit must not leak into a build pinned to the first one
    writeFileSync(path.join(repoDir, 'policies.md'), 'Refund everything, always.\n');
    git(repoDir, 'commit', '-q', '-am', 'later change');
    copyDir(catalogApp('shop-support'), path.join(roots, 'shop-local'));

    const fromGit = await buildAndWait(admin, {
      application_id: await app('shop git', { kind: 'git', url: repo.url, commit: repo.commit, ref: 'main' }),
      scenario_target: 4,
    });
    const fromLocal = await buildAndWait(admin, {
      application_id: await app('shop local', { kind: 'local_path', path: 'shop-local' }),
      scenario_target: 4,
    });
    const upload = (await admin.post('/v1/applications/import-catalog')).body.registered.find(
      (a: any) => a.name === 'shop-support',
    );
    const fromUpload = await buildAndWait(admin, { application_id: upload.id, scenario_target: 4 });

    for (const b of [fromGit, fromLocal, fromUpload])
      expect(b.job.status, JSON.stringify(b.job.error)).to.equal('succeeded');
    const v = (await admin.get(`/v1/world-versions/${fromGit.build.world_version_id}`)).body;
    expect(v.provenance.source).to.include({
      kind: 'git',
      url: repo.url,
      commit: repo.commit,
      ref: 'main',
      digest: shopDigest,
    });
    expect(
      (await admin.get(`/v1/world-versions/${fromLocal.build.world_version_id}`)).body.provenance.source,
    ).to.include({ kind: 'local_path', path: 'shop-local', digest: shopDigest });
    expect(fromGit.job.result.world_content_hash).to.equal(fromUpload.job.result.world_content_hash);
    expect(fromLocal.job.result.world_content_hash).to.equal(fromUpload.job.result.world_content_hash);

    const later = git(repoDir, 'rev-parse', 'HEAD');
    const fromLater = await buildAndWait(admin, {
      application_id: await app('shop git later', { kind: 'git', url: repo.url, commit: later }),
      scenario_target: 4,
    });
    expect(fromLater.job.status).to.equal('succeeded');
    expect(fromLater.job.result.world_content_hash).not.to.equal(fromGit.job.result.world_content_hash);
  });

  it('repair replaces a scenario whose reference plan fails by the next variant of its template', async () => {
    brokenFirstVariant(path.join(roots, 'shop-broken'));
    const repo = makeGitRepo(path.join(roots, 'shop-broken'), {});
    const id = await app('shop broken', { kind: 'git', url: repo.url, commit: repo.commit });

    const repaired = await buildAndWait(admin, { application_id: id, scenario_target: 14 });
    expect(repaired.job.status).to.equal('succeeded');
    expect(repaired.job.result).to.include({ scenarios: 14, withdrawn: 1 });
    const list = (await admin.get(`/v1/world-versions/${repaired.build.world_version_id}/scenarios`)).body;
    const gone = list.find((s: any) => s.scenario_id === 'order-status--v1');
    expect(gone.status).to.equal('withdrawn');
    expect(gone.validation_report.replaced_by).to.equal('order-status--v2');
    expect(gone.validation_report.problems.join(' ')).to.match(/reference plan|could not run|check/);
    expect(list.find((s: any) => s.scenario_id === 'order-status--v2').status).to.equal('approved');
    const report = (await admin.get(`/v1/world-versions/${repaired.build.world_version_id}`)).body.validation_report;
    expect(report.withdrawals).to.deep.equal([
      { scenario_id: 'order-status--v1', reasons: gone.validation_report.problems, replaced_by: 'order-status--v2' },
    ]);

    const noRepair = await buildAndWait(admin, {
      application_id: id,
      scenario_target: 14,
      max_repair_rounds: 0,
      check_determinism: false,
    });
    expect(noRepair.job.status).to.equal('succeeded');
    expect(noRepair.job.result).to.include({ scenarios: 13, withdrawn: 1 });
    const v = (await admin.get(`/v1/world-versions/${noRepair.build.world_version_id}`)).body;
    expect(v.validation_report).to.include({ replays_per_scenario: 1, repair_rounds: 0 });
  });

  it('withdraws a hackable scenario (a progress check an untouched world passes) and says why', async () => {
    const dir = path.join(roots, 'shop-hackable');
    copyDir(catalogApp('shop-support'), dir);
    // refund-late with its "no refund exists" check left as progress: doing nothing passes it
    const late = readFileSync(path.join(dir, 'scenarios', 'refund-late.yaml'), 'utf8');
    expect(late).to.contain('kind: state, role: guard,');
    writeFileSync(
      path.join(dir, 'scenarios', 'aa-hackable.yaml'),
      late.replace('id: refund-late', 'id: aa-hackable').replace('kind: state, role: guard,', 'kind: state,'),
    );
    const built = await buildAndWait(admin, {
      application_id: await app('shop hackable', { kind: 'local_path', path: 'shop-hackable' }),
      scenario_target: 2,
      max_repair_rounds: 0,
    });
    expect(built.job.status, JSON.stringify(built.job.error)).to.equal('succeeded');
    expect(built.job.result).to.include({ scenarios: 1, withdrawn: 1 });
    const list = (await admin.get(`/v1/world-versions/${built.build.world_version_id}/scenarios`)).body;
    const gone = list.find((s: any) => s.scenario_id === 'aa-hackable--v1');
    expect(gone.status).to.equal('withdrawn');
    const report = gone.validation_report;
    expect(report.hackable).to.equal(true);
    expect(report.problems).to.deep.equal([
      'hackable: the do-nothing agent (builtin:idle) scores 0.25 on goal version 1',
      'hackable: the complete-at-once agent (builtin:complete) scores 0.25 on goal version 1',
      'hackable: the claims-done-without-doing agent (builtin:claim) scores 0.25 on goal version 1',
      'hackable: the judge-addressing agent (builtin:address-judge) scores 0.25 on goal version 1',
      'progress checks "no refund exists" pass without any work: mark a check that merely must stay true `role: guard`, or check what the agent has to change',
    ]);
    expect(report.calibration.map((c: any) => [c.agent, c.reward, c.false_completion])).to.deep.equal([
      ['builtin:idle', 0.25, false],
      ['builtin:complete', 0.25, true],
      ['builtin:claim', 0.25, true],
      ['builtin:address-judge', 0.25, true],
    ]);
    // the fair one beside it was calibrated too, all four at 0
    const fair = list.find((s: any) => s.scenario_id === 'address-change--v1');
    expect(fair.status).to.equal('approved');
    expect(fair.validation_report.hackable).to.equal(false);
    expect(fair.validation_report.calibration.map((c: any) => c.reward)).to.deep.equal([0, 0, 0, 0]);
  });

  it('plays the adversarial agents: names what caught each, and withdraws a scenario collateral writes pass', async () => {
    const dir = path.join(roots, 'shop-collateral');
    copyDir(catalogApp('shop-support'), dir);
    // refund-damaged whose author's own guards ignore too much (an author's unchanged check on
    // a read replaces the world guard on it): a refund of the other order, or a change of the
    // profile's address, goes unseen
    const damaged = readFileSync(path.join(dir, 'scenarios', 'refund-damaged.yaml'), 'utf8');
    const guard =
      '    - { name: the other order is untouched, kind: unchanged, tool: get_order, args: { order_id: "${other.id}" } }\n';
    const loose =
      '    - { name: the other order is untouched, kind: unchanged, tool: get_order, args: { order_id: "${other.id}" }, ignore: [refunded_amount] }\n' +
      '    - { name: the profile is untouched, kind: unchanged, tool: get_customer, args: { customer_id: "${cust.id}" }, ignore: [address] }\n';
    expect(damaged).to.contain(guard);
    writeFileSync(
      path.join(dir, 'scenarios', 'aa-collateral.yaml'),
      damaged.replace('id: refund-damaged', 'id: aa-collateral').replace(guard, loose),
    );
    const built = await buildAndWait(admin, {
      application_id: await app('shop collateral', { kind: 'local_path', path: 'shop-collateral' }),
      scenario_target: 2,
      max_repair_rounds: 0,
    });
    expect(built.job.status, JSON.stringify(built.job.error)).to.equal('succeeded');
    expect(built.job.result).to.include({ scenarios: 1, withdrawn: 1 });
    const list = (await admin.get(`/v1/world-versions/${built.build.world_version_id}/scenarios`)).body;
    const weak = list.find((s: any) => s.scenario_id === 'aa-collateral--v1');
    expect(weak.status).to.equal('withdrawn');
    expect(weak.validation_report.hackable).to.equal(true);
    const collateral = weak.validation_report.adversaries.find((a: any) => a.agent === 'builtin:collateral');
    expect(collateral).to.include({ success: true, reward: 1 });
    expect(collateral.caught_by).to.deep.equal([]);
    expect(weak.validation_report.problems).to.include(
      'hackable: the collateral-writes agent (builtin:collateral) succeeds (reward 1): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)',
    );
    expect(weak.validation_report.adversary_flags).to.deep.equal([]);
    const twice = weak.validation_report.adversaries.find((a: any) => a.agent === 'builtin:twice');
    expect(twice.success).to.equal(false);
    expect(twice.caught_by).to.include('duplicate_effects');
    // the catalog's address-change guards the profile: every adversary fails, and says what caught it
    const fair = list.find((s: any) => s.scenario_id === 'address-change--v1');
    expect(fair.validation_report.adversaries.map((a: any) => a.agent)).to.deep.equal([
      'builtin:collateral',
      'builtin:every-id',
      'builtin:twice',
    ]);
    for (const a of fair.validation_report.adversaries) {
      expect(a.success, a.agent).to.equal(false);
      expect(a.reward, a.agent).to.be.below(1);
    }
    const byAgent = Object.fromEntries(fair.validation_report.adversaries.map((a: any) => [a.agent, a.caught_by]));
    expect(byAgent['builtin:collateral']).to.include('guard "the profile address is untouched"');
    expect(fair.validation_report.adversary_flags).to.deep.equal([]);
  });

  it('a build that cannot be done fails, and says why in the job error and on the world version', async () => {
    const missingCommit = await buildAndWait(admin, {
      application_id: await app('no such commit', {
        kind: 'git',
        url: makeGitRepo(path.join(roots, 'tiny'), { 'world.yaml': 'name: tiny\n' }).url,
        commit: 'f'.repeat(40),
      }),
    });
    expect(missingCommit.job.status).to.equal('failed');
    expect(missingCommit.job.error).to.match(/could not fetch|is not in/);
    expect(missingCommit.job.completed_phases).to.deep.equal([]);
    const mv = (await admin.get(`/v1/world-versions/${missingCommit.build.world_version_id}`)).body;
    expect(mv).to.include({ status: 'failed', error: missingCommit.job.error });

    const badDir = path.join(roots, 'bad-world');
    copyDir(catalogApp('shop-support'), badDir);
    writeFileSync(
      path.join(badDir, 'world.yaml'),
      readFileSync(path.join(badDir, 'world.yaml'), 'utf8').replace(
        'openapi: shop/openapi.yaml',
        'openapi: shop/missing.yaml',
      ),
    );
    const invalid = await buildAndWait(admin, {
      application_id: await app('bad world', { kind: 'local_path', path: 'bad-world' }),
    });
    expect(invalid.job.status).to.equal('failed');
    expect(invalid.job.error).to.match(/not a valid world/);
    expect(invalid.job.error).to.contain('shop/missing.yaml');
    expect(invalid.job.completed_phases).to.deep.equal(['fetch_source']);

    const deadDir = path.join(roots, 'dead-service');
    copyDir(catalogApp('shop-support'), deadDir);
    writeFileSync(
      path.join(deadDir, 'shop', 'server.mjs'),
      "console.error('shop refuses to start'); process.exit(3);\n",
    );
    const dead = await buildAndWait(admin, {
      application_id: await app('dead service', { kind: 'local_path', path: 'dead-service' }),
      scenario_target: 2,
    });
    expect(dead.job.status).to.equal('failed');
    expect(dead.job.error).to.match(/services did not start/);
    expect(dead.job.completed_phases).to.deep.equal(['fetch_source', 'analyse', 'derive_tools', 'generate_scenarios']);
  });

  it('refuses a build of an upload application without its archive (409), and a non-built-in model without a model credential (422)', async () => {
    const id = await app('empty upload', { kind: 'upload' });
    const r = await admin.post('/v1/world-builds', { application_id: id });
    expect(r.status).to.equal(409);
    expect(r.body.detail).to.match(/upload a \.tar\.gz/);
    const git1 = await app('model build', { kind: 'git', url: 'https://example.com/r.git', commit: 'a'.repeat(40) });
    const m = await admin.post('/v1/world-builds', { application_id: git1, model: 'gpt-4o-mini' });
    expect(m.status).to.equal(422);
    expect(m.body.detail[0].field).to.equal('model');
    expect(m.body.detail[0].message).to.match(/credential/);
    const bounds = await admin.post('/v1/world-builds', {
      application_id: git1,
      scenario_target: 31,
      max_repair_rounds: 6,
      budget_usd: -1,
    });
    expect(bounds.status).to.equal(422);
    expect(bounds.body.detail.map((d: any) => d.field).sort()).to.deep.equal([
      'budget_usd',
      'max_repair_rounds',
      'scenario_target',
    ]);
  });
});
