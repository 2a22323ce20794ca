/**
 * The layout's rules (docs/architecture.md, "Dependency rules"), checked by `npm test`:
 * each top-level component folder is entered only through its index.ts, no two top-level
 * folders import each other, directly or around a loop, and the gateway imports only types
 * from the scheduler. Tests, benchmarks and examples may reach inside a component (they test
 * its parts), but never the other way.
 * COMPONENT_FOLDERS is the one list of components: `npm run deps:check` and `npm test` cruise
 * the whole tree (`.`), and `includeOnly` keeps it to these folders and the code that uses them.
 */
const COMPONENT_FOLDERS = [
  'accounts',
  'billing',
  'catalog',
  'cli',
  'core',
  'episode-actor',
  'gateway',
  'proto',
  'scheduler',
  'world',
  'world-worker',
];
const COMPONENTS = `(${COMPONENT_FOLDERS.join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'index-is-the-only-door',
      comment: 'Import another component through its index.ts; its other files are its inside.',
      severity: 'error',
      from: { path: `^${COMPONENTS}/` },
      to: { path: `^${COMPONENTS}/`, pathNot: ['^$1/', `^${COMPONENTS}/index\\.ts$`] },
    },
    {
      name: 'no-cycle-between-components',
      comment: 'Two top-level folders import each other (directly or around a loop).',
      severity: 'error',
      scope: 'folder',
      from: { path: `^${COMPONENTS}$` },
      to: { path: `^${COMPONENTS}$`, circular: true },
    },
    {
      name: 'gateway-takes-only-types-from-the-scheduler',
      comment:
        'The gateway may type a record with the scheduler’s type (import type), but runs no scheduler code: it calls the scheduler over gRPC.',
      severity: 'error',
      from: { path: '^gateway/' },
      to: { path: '^scheduler/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'components-do-not-import-tests',
      severity: 'error',
      from: { path: `^${COMPONENTS}/` },
      to: { path: '^(test|bench|examples)/' },
    },
  ],
  options: {
    includeOnly: `^(${[...COMPONENT_FOLDERS, 'test', 'bench', 'examples'].join('|')})/`,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|data|\\.tmp|catalog/apps|console)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.check.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
