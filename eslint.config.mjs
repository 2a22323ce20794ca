// The linter `npm test` runs (scripts/run-tests.mjs; `npm run lint:fix` applies the fixable
// rules). Type-aware: promises nobody awaits and imports that are only types are found
// through the compiler's view of the code, the same projects `tsc` checks.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // generated code, pinned applications (a digest covers their bytes) and built output
    ignores: ['node_modules/', 'dist/', 'data/', '.tmp/', 'catalog/apps/', 'proto/generated/', 'clients/'],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.check.json', './console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // a promise left alone loses its rejection: await it, return it, or say `void` on purpose
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // react-router's navigate() returns a promise only to data routers, which the console does not use
          allowForKnownSafeCalls: [{ from: 'package', name: 'NavigateFunction', package: 'react-router' }],
        },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      // an import of types only is written `import type`, so it is dropped whole from the output
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // files outside both projects (build configs) get the rules that need no types
    files: ['console/vite.config.ts', 'console/*.ts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // tests, benches and examples may hand-craft shapes with `any`; the product may not
    files: ['test/**', 'bench/**', 'examples/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
