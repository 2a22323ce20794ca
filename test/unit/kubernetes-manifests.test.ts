import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = path.join(ROOT, 'deploy', 'kubernetes');

/** The schema model of each kind the manifests use (kubernetes-models: the Kubernetes OpenAPI schemas). */
const MODELS: Record<string, new (o: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

type Obj = Record<string, any>;
const kustomization = parse(readFileSync(path.join(DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
const objects: Obj[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map((d) => {
    expect(d.errors, file).to.deep.equal([]);
    return d.toJS() as Obj;
  }),
);
const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
const byName = (kind: string, name: string) => ofKind(kind).find((o) => o.metadata.name === name);
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const config = byName('ConfigMap', 'crucible-config')!.data as Record<string, string>;
const operations = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');

/** deploy/kubernetes (issue 24 item 5), checked offline against the Kubernetes schemas and for what the roles need. */
describe('Kubernetes manifests', () => {
  it('kustomization.yaml lists every manifest of the folder', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).to.deep.equal(files.sort());
  });

  it('every object validates against the schema of its kind', () => {
    expect(objects.length).to.be.greaterThan(0);
    for (const o of objects) {
      const Model = MODELS[`${o.apiVersion}/${o.kind}`];
      expect(Model, `${o.apiVersion} ${o.kind} has no schema model here`).to.not.equal(undefined);
      expect(() => new Model!(o).validate(), `${o.kind} ${o.metadata?.name}`).to.not.throw();
    }
  });

  it('the validator refuses a broken object (so the check above can fail)', () => {
    const broken = structuredClone(byName('Deployment', 'crucible-worker')!);
    broken.spec.replicas = 'two';
    expect(() => new Deployment(broken).validate()).to.throw(/replicas/);
    const noSelector = structuredClone(byName('Deployment', 'crucible-worker')!);
    delete noSelector.spec.selector;
    expect(() => new Deployment(noSelector).validate()).to.throw(/selector/);
  });

  it('a gateway, scheduler and worker Deployment, each ready on /readyz of the operator port', () => {
    for (const role of ['gateway', 'scheduler', 'worker']) {
      const d = byName('Deployment', `crucible-${role}`);
      expect(d, role).to.not.equal(undefined);
      const c = d!.spec.template.spec.containers[0];
      expect(c.args, role).to.deep.equal([role]);
      expect(matches(d!.spec.selector.matchLabels, d!.spec.template.metadata.labels), role).to.equal(true);
      expect(c.readinessProbe.httpGet.path, role).to.equal('/readyz');
      const port = c.ports.find((p: Obj) => p.name === c.readinessProbe.httpGet.port);
      expect(String(port.containerPort), role).to.equal(config.OPS_PORT);
      expect(c.envFrom.map((e: Obj) => e.configMapRef?.name ?? e.secretRef?.name)).to.deep.equal([
        'crucible-config',
        'crucible-stores',
      ]);
    }
  });

  it('each role drains on SIGTERM within a grace period, the gateway leaving its Service first', () => {
    const grace = (role: string) => byName('Deployment', `crucible-${role}`)!.spec.template.spec;
    expect(grace('gateway').terminationGracePeriodSeconds).to.be.at.least(30);
    expect(grace('scheduler').terminationGracePeriodSeconds).to.be.at.least(30);
    // a worker finishes or hands back its episodes before it exits
    expect(grace('worker').terminationGracePeriodSeconds).to.be.at.least(300);
    const preStop = grace('gateway').containers[0].lifecycle.preStop.exec.command;
    expect(preStop[0]).to.equal('node');
  });

  it('secrets are mounted readable by their owner alone (0400), one per role, where CONTROL_PLANE_* point', () => {
    for (const role of ['gateway', 'scheduler', 'worker']) {
      const spec = byName('Deployment', `crucible-${role}`)!.spec.template.spec;
      const secrets = spec.volumes.filter((v: Obj) => v.secret);
      expect(secrets, role).to.have.length(1);
      expect(secrets[0].secret.defaultMode, role).to.equal(0o400);
      expect(secrets[0].secret.secretName, role).to.equal(`crucible-${role}-tls`);
      const mount = spec.containers[0].volumeMounts.find((m: Obj) => m.name === secrets[0].name);
      expect(mount.readOnly, role).to.equal(true);
      for (const key of ['CONTROL_PLANE_CA', 'CONTROL_PLANE_CRL', 'CONTROL_PLANE_CERT', 'CONTROL_PLANE_KEY'])
        expect(path.dirname(config[key]!), key).to.equal(mount.mountPath);
      expect(spec.automountServiceAccountToken, role).to.equal(false);
      // the operator guide says how to make each Secret the roles read
      expect(operations, role).to.include(`crucible-${role}-tls`);
    }
    expect(operations).to.include('crucible-stores');
  });

  it('Services: the gateway behind a ClusterIP, the schedulers headless (every scheduler resolved)', () => {
    const gw = byName('Service', 'crucible-gateway')!;
    expect(matches(gw.spec.selector, byName('Deployment', 'crucible-gateway')!.spec.template.metadata.labels)).to.equal(
      true,
    );
    const sch = byName('Service', 'crucible-scheduler')!;
    expect(sch.spec.clusterIP).to.equal('None');
    expect(config.SCHEDULER_ADDR).to.equal(`crucible-scheduler:${sch.spec.ports[0].port}`);
  });

  it('every Deployment has a PodDisruptionBudget over its pods', () => {
    for (const d of ofKind('Deployment')) {
      const pdb = ofKind('PodDisruptionBudget').filter((p) =>
        matches(p.spec.selector.matchLabels, d.spec.template.metadata.labels),
      );
      expect(pdb, d.metadata.name).to.have.length(1);
    }
  });

  it('the worker HPA follows queued episodes per free place, a gauge the scheduler exports and the guide documents', () => {
    const hpa = ofKind('HorizontalPodAutoscaler');
    expect(hpa).to.have.length(1);
    expect(hpa[0]!.spec.scaleTargetRef).to.include({ kind: 'Deployment', name: 'crucible-worker' });
    const metric = hpa[0]!.spec.metrics[0].external.metric.name as string;
    expect(metric).to.equal('crucible_episodes_queued_per_free_place');
    expect(readFileSync(path.join(ROOT, 'scheduler', 'metrics.ts'), 'utf8')).to.include(`'${metric}'`);
    expect(operations).to.include(metric);
  });
});
