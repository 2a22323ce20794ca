import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

/**
 * The layout's rules (.dependency-cruiser.cjs, docs/architecture.md) run by `npm test` over
 * the tree; these cases show they catch what they are for, on small trees of their own, so a
 * rule that stopped matching (a renamed folder, a changed option) cannot pass unnoticed.
 */
const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as { forbidden: unknown[]; options: Record<string, unknown> };

async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'crucible-deps-'));
  try {
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
    );
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.join(dir, path.dirname(name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
    const folders = [...new Set(Object.keys(files).map((f) => f.split('/')[0]!))];
    const out = await cruise(folders, {
      ...config.options,
      baseDir: dir,
      tsConfig: { fileName: path.join(dir, 'tsconfig.json') },
      ruleSet: { forbidden: config.forbidden } as never,
      validate: true,
    });
    const result = out.output as ICruiseResult;
    return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('dependency rules', function () {
  this.timeout(30_000);

  it('let components import each other through their index, one way', async () => {
    expect(
      await violations({
        'world/index.ts': "export { w } from './model.js';\n",
        'world/model.ts': 'export const w = 1;\n',
        'scheduler/index.ts': "import { w } from '../world/index.js';\nexport const s = w;\n",
      }),
    ).to.deep.equal([]);
  });

  it('refuse an import past another component’s index', async () => {
    const found = await violations({
      'world/index.ts': "export { w } from './model.js';\n",
      'world/model.ts': 'export const w = 1;\n',
      'scheduler/index.ts': "import { w } from '../world/model.js';\nexport const s = w;\n",
    });
    expect(found).to.deep.equal(['index-is-the-only-door: scheduler/index.ts -> world/model.ts']);
  });

  it('refuse two components importing each other, even around a loop', async () => {
    const found = await violations({
      'world/index.ts': "import { b } from '../billing/index.js';\nexport const w = b;\n",
      'billing/index.ts': "import { s } from '../scheduler/index.js';\nexport const b = s;\n",
      'scheduler/index.ts': "import { w } from '../world/index.js';\nexport const s = w;\n",
    });
    expect(found).to.not.be.empty;
    expect(found.every((v) => v.startsWith('no-cycle-between-components:'))).to.equal(true, found.join('\n'));
  });

  it('let the gateway take types from the scheduler, and refuse anything else', async () => {
    const scheduler = { 'scheduler/index.ts': 'export interface R { id: string }\nexport const s = 1;\n' };
    expect(
      await violations({
        ...scheduler,
        'gateway/index.ts': "import type { R } from '../scheduler/index.js';\nexport const g: R = { id: '' };\n",
      }),
    ).to.deep.equal([]);
    expect(
      await violations({
        ...scheduler,
        'gateway/index.ts': "import { s } from '../scheduler/index.js';\nexport const g = s;\n",
      }),
    ).to.deep.equal(['gateway-takes-only-types-from-the-scheduler: gateway/index.ts -> scheduler/index.ts']);
  });

  it('refuse a component importing a test', async () => {
    const found = await violations({
      'core/index.ts': "import { t } from '../test/support/x.js';\nexport const c = t;\n",
      'test/support/x.ts': 'export const t = 1;\n',
    });
    expect(found).to.deep.equal(['components-do-not-import-tests: core/index.ts -> test/support/x.ts']);
  });
});
