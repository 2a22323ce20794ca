import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { cli } from '../support/cli-process.js';

/**
 * Issue 24: a gateway, scheduler or worker started on its own, with no networked store, used
 * to open a private SQLite file and answer healthy while looking at other data than its peers.
 * Each now exits at start naming what to set, before it opens any file.
 */
describe('separate roles refuse a store they cannot share', function () {
  this.timeout(60_000);
  let dir: string;
  before(async function () {
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-refuse-'));
  });
  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  for (const role of ['scheduler', 'worker', 'gateway'] as const) {
    it(`crucible ${role} with NATS and Redis but no DATABASE_URL or MONGODB_URL exits 1 naming them`, async function () {
      const data = path.join(dir, role);
      const result = await cli([role], {
        SERVICE_DATA_DIR: data,
        DATABASE_URL: '',
        MONGODB_URL: '',
        SERVICE_STORE_SHARED_SQLITE: '',
        CONTROL_PLANE_INSECURE: 'true',
        SCHEDULER_ADDR: '127.0.0.1:1',
        SCHEDULER_PORT: '0',
        PORT: '0',
        NATS_URL: 'nats://127.0.0.1:4222',
        REDIS_URL: 'redis://127.0.0.1:6379',
      });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.contain(`crucible ${role} runs beside other roles`);
      expect(result.stderr).to.contain('DATABASE_URL').and.contain('MONGODB_URL');
      expect(existsSync(path.join(data, 'crucible.db'))).to.equal(false);
    });
  }
});
