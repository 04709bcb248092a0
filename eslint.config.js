// npm run lint: typescript-eslint's recommended rules, plus the house limits (CONTRIBUTING.md): no line over
// 140 characters (a message in one string or template literal may run longer: splitting it would
// only hide it from grep), no hand-written source file over 300 lines.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'src/protocol/types.generated.ts', '.scratch/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreStrings: true, ignoreTemplateLiterals: true }],
      // A closure that reads a variable before its one assignment (a teardown) needs `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Flags `let n = 0` assigned again in a try or a loop before any read: noise, not a defect.
      'no-useless-assignment': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Type-aware: a promise nobody awaits loses its rejection (and its ordering) in a server that awaits
    // I/O on every callback. Each .ts file is checked with the tsconfig nearest to it (ui/ has its own).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // tap queues a subtest and its parent waits for it, so `t.test(...)` is awaited by the harness.
        { allowForKnownSafeCalls: [{ from: 'package', package: '@tapjs/test', name: 'test' }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'ui/**/*.tsx', 'ui/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    // The dependency-cruiser configuration is CommonJS, as the tool reads it.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Tests build deliberately broken bodies and read untyped JSON replies.
    files: ['test/**/*.ts'],
    // They strip ANSI colours (\x1b) from what the CLI printed.
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off', 'no-control-regex': 'off' },
  },
);
