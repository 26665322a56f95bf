// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * typescript-eslint's recommended rules. `any` is an error in src/ except at library seams that
 * are marked with a reason (`// eslint-disable-next-line @typescript-eslint/no-explicit-any -- why`);
 * tests may use it for bodies they inspect. Formatting is prettier's (npm run format).
 */
export default tseslint.config(
  { ignores: ['node_modules/', 'lib/', 'data/', '.tmp/', 'public/assets/', 'bench/.data/', 'client/lib/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }
      ],
      '@typescript-eslint/no-require-imports': 'off',
      // Control characters in patterns are the point where they appear (file names, LIKE escapes, NUL checks).
      'no-control-regex': 'off'
    }
  },
  { files: ['src/**/*.ts', 'client/src/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'error' } },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-this-alias': 'off' }
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly'
      }
    }
  }
)
