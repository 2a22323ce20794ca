import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';

/** compose.yaml runs the shape docs/operations.md describes (issue 14, item 7). */
describe('compose.yaml', () => {
  const doc = parse(readFileSync(new URL('../../compose.yaml', import.meta.url), 'utf8'), { merge: true }) as {
    services: Record<
      string,
      { command?: string[]; restart?: string; healthcheck?: { test: string[] }; environment?: Record<string, string> }
    >;
  };
  const roles = (name: string) => Object.entries(doc.services).filter(([, s]) => s.command?.[0] === name);

  it('has two schedulers, two gateways and two world-workers', () => {
    expect(roles('scheduler')).to.have.length(2);
    expect(roles('gateway')).to.have.length(2);
    expect(roles('worker')).to.have.length(2);
  });

  it('every role restarts when it dies and is health-checked through /readyz', () => {
    for (const [name, s] of [...roles('scheduler'), ...roles('gateway'), ...roles('worker')]) {
      expect(s.restart, name).to.equal('unless-stopped');
      expect(s.healthcheck?.test.join(' '), name).to.match(/\/readyz/);
    }
    for (const name of ['mongo', 'nats', 'redis']) expect(doc.services[name]!.restart, name).to.equal('unless-stopped');
  });

  it('schedulers and workers serve the operator endpoints on OPS_PORT, the port their health check asks', () => {
    for (const [name, s] of [...roles('scheduler'), ...roles('worker')]) {
      const port = s.environment?.OPS_PORT;
      expect(port, name).to.be.a('string');
      expect(s.healthcheck!.test.join(' '), name).to.include(`:${port}/readyz`);
    }
  });
});
