// ESLint (flat config): typescript-eslint's recommended type-aware rules, with the promise rules that matter most
// in a service that waits on databases, providers and Temporal. Formatting is Prettier's job (npm run format).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.data/**',
      'test-output/**',
      'api/static/**',
      'web/dashboard/dist/**',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Interface methods (migrations, adapters, activities) are async by contract even when they don't await.
      '@typescript-eslint/require-await': 'off',
      // Route handlers receive helper functions (header(), …) that are plain closures, not methods.
      '@typescript-eslint/unbound-method': 'off',
      // Koa's `next` is typed Promise<any>; `return next()` is the idiom.
      '@typescript-eslint/no-unsafe-return': ['error'],
    },
  },
  {
    // Tests and benchmarks read untyped JSON responses and assert on them: that is the point of them.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // chai's expect(x).to.be.true is an expression statement by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
);
