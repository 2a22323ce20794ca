import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHARS_PER_TOKEN, MAX_SOURCE_FILE_BYTES, relevantSourceFiles } from '../../world-worker/builds/relevant.js';

/** What a scenario proposal for a source with a world is shown of its code (docs/worlds.md, Proposals). */
describe('the source files a scenario proposal is shown', () => {
  let root: string;
  const put = (rel: string, text: string | Buffer) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  const terms = ['orders', 'get_order', 'create_refund', '/orders/{order_id}/refunds'];

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'crucible-relevant-'));
    put('services/shop/openapi.yaml', 'openapi: 3.0.3\npaths: {}\n');
    put('services/shop/routes/refunds.js', 'export function createRefund(order) { /* REFUND-RULE-7 */ }\n');
    put('services/shop/util/strings.js', 'export const pad = (s) => s.padStart(4);\n');
    put('services/shop/package-lock.json', '{"name":"orders","lockfileVersion":3}');
    put('services/shop/node_modules/orders/index.js', 'module.exports = "orders";');
    put('services/shop/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    put('services/shop/orders.dat.json', Buffer.concat([Buffer.from('orders'), Buffer.from([0, 1, 2])]));
    put('services/shop/fixtures/orders-dump.json', `{"orders": "${'x'.repeat(MAX_SOURCE_FILE_BYTES)}"}`);
    put('world.yaml', 'name: shop\n');
    put('world/scenarios/refund.yaml', 'id: refund # orders\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('shows the OpenAPI documents and the files naming the services, tools and routes; skips the rest', async () => {
    const files = await relevantSourceFiles(root, terms);
    const paths = files.map((f) => f.path);
    expect(paths[0]).to.equal('services/shop/openapi.yaml');
    expect(paths).to.include('services/shop/routes/refunds.js');
    expect(files.find((f) => f.path.endsWith('refunds.js'))!.text).to.contain('REFUND-RULE-7');
    // irrelevant, lockfile, dependency, binary, oversize and world files are never shown
    for (const skipped of [
      'services/shop/util/strings.js',
      'services/shop/package-lock.json',
      'services/shop/node_modules/orders/index.js',
      'services/shop/logo.png',
      'services/shop/orders.dat.json',
      'services/shop/fixtures/orders-dump.json',
      'world.yaml',
      'world/scenarios/refund.yaml',
    ])
      expect(paths, skipped).not.to.include(skipped);
  });

  it('leaves out the files it is told to (the world’s scenario templates, wherever they live)', async () => {
    put('scenarios/refund.yaml', 'id: refund\ntool: create_refund # orders\n');
    expect((await relevantSourceFiles(root, terms)).map((f) => f.path)).to.include('scenarios/refund.yaml');
    const paths = (await relevantSourceFiles(root, terms, undefined, new Set(['scenarios/refund.yaml']))).map(
      (f) => f.path,
    );
    expect(paths).not.to.include('scenarios/refund.yaml');
    expect(paths).to.include('services/shop/routes/refunds.js');
  });

  it('ranks files under routes/ and handlers/ and with matching names first, and cuts everything to the token budget', async () => {
    put('services/shop/handlers/orders.js', `// orders refund handler\n${'a'.repeat(30_000)}`);
    put('services/shop/lib/mention.js', `// mentions orders once\n${'b'.repeat(30_000)}`);
    const budget = 5_000;
    const files = await relevantSourceFiles(root, terms, budget);
    const paths = files.map((f) => f.path);
    expect(paths.indexOf('services/shop/handlers/orders.js')).to.be.below(
      paths.indexOf('services/shop/lib/mention.js'),
    );
    const total = files.reduce((n, f) => n + f.text.length, 0);
    expect(total).to.be.at.most(budget * CHARS_PER_TOKEN);
    const big = files.find((f) => f.path === 'services/shop/handlers/orders.js')!;
    // no one file takes more than half the budget; what was cut is said
    expect(big.text.length).to.equal((budget * CHARS_PER_TOKEN) / 2);
    expect(big.truncated_chars).to.equal(30_000 + '// orders refund handler\n'.length - big.text.length);
  });
});
