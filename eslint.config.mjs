// @ts-check
import { defineConfig } from 'eslint/config';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import noCycle from './lint/no-cycle.mjs';

/**
 * ESLint's own recommended rules, read from the rules' metadata (what @eslint/js's `recommended` is
 * built from), so the config needs no package beyond eslint itself.
 */
const eslintRecommended = Object.fromEntries(
  [...builtinRules].filter(([, rule]) => rule.meta?.docs?.recommended).map(([name]) => [name, 'error']),
);

/**
 * The layers (DEVELOPERS.md): the runtime knows no front end; the statement parser knows no command;
 * what the commands use (HTTP transport, drives, targets, writers, change logs, CDC) knows no command;
 * the front ends reach the runtime
 * through its public API only and not each other; the Jupyter protocol knows neither the runtime nor
 * a front end. Tests and benchmarks may import anything.
 */
const FRONT_ENDS = ['./kernel', './repl', './bin'];
const zones = [
  {
    target: './runtime',
    from: [...FRONT_ENDS, './jupyter', './test', './bench'],
    message: 'the runtime knows no front end',
  },
  { target: './runtime/script', from: './runtime/commands', message: 'the statement parser knows no command' },
  {
    target: [
      './runtime/http',
      './runtime/drives',
      './runtime/targets',
      './runtime/writers',
      './runtime/changelog',
      './runtime/cdc',
    ],
    from: ['./runtime/commands', './runtime/magics', './runtime/session.ts'],
    message: 'what the commands use (transport, drives, targets, writers, change logs, CDC) knows no command',
  },
  {
    target: ['./runtime/support.ts', './runtime/admin.ts', './runtime/changelog-files.ts', './runtime/tables.ts'],
    from: [
      './runtime/index.ts',
      './runtime/session.ts',
      './runtime/script',
      './runtime/commands',
      './runtime/functions',
      './runtime/http',
      './runtime/drives',
      './runtime/targets',
    ],
    message: 'runtime/support.ts, admin.ts, changelog-files.ts and tables.ts load without the interpreter',
  },
  {
    target: './runtime/startup.ts',
    from: './runtime',
    except: [
      './startup.ts',
      './workspace/location.ts',
      './workspace/secret-input.ts',
      './workspace/redact.ts',
      './util/fifo.ts',
    ],
    message:
      'runtime/startup.ts is what the kernel loads before its first reply: where the workspace is, secrets masked, a queue',
  },
  {
    target: './runtime/support.ts',
    from: ['./runtime/dataset', './runtime/writers'],
    message: 'runtime/support.ts is what the kernel loads before its first reply: the dataset is in runtime/tables.ts',
  },
  {
    target: './runtime/check.ts',
    from: [
      './runtime/index.ts',
      './runtime/session.ts',
      './runtime/commands',
      './runtime/magics',
      './runtime/functions',
      './runtime/http',
      './runtime/drives',
      './runtime/targets',
    ],
    message: 'runtime/check.ts loads the statement parser alone',
  },
  {
    target: './runtime/interpreter.ts',
    from: ['./runtime/index.ts', './runtime/services', './runtime/webhook', './runtime/workspace/rotate-key.ts'],
    message: 'runtime/interpreter.ts loads a session without what only other front ends use',
  },
  {
    target: './runtime/serve.ts',
    from: [
      './runtime/index.ts',
      './runtime/session.ts',
      './runtime/commands',
      './runtime/magics',
      './runtime/services',
    ],
    message: 'runtime/serve.ts loads the webhook listener without the session',
  },
  ...FRONT_ENDS.map((target) => ({
    target,
    from: './runtime',
    except: [
      './index.ts',
      './startup.ts',
      './support.ts',
      './admin.ts',
      './changelog-files.ts',
      './tables.ts',
      './check.ts',
      './interpreter.ts',
      './serve.ts',
    ],
    message:
      'a front end imports the runtime through runtime/index.ts (or its parts startup, support, admin, changelog-files, tables, check, interpreter, serve)',
  })),
  { target: './kernel', from: ['./repl', './bin'], message: 'the kernel imports no other front end' },
  { target: './repl', from: ['./kernel', './bin'], message: 'the REPL imports no other front end' },
  {
    target: './jupyter',
    from: ['./runtime', ...FRONT_ENDS],
    message: 'the Jupyter protocol knows neither the runtime nor a front end',
  },
];

/** The Node.js globals the plain JavaScript files use. */
const nodeGlobals = Object.fromEntries(
  ['require', 'module', 'exports', '__dirname', '__filename', 'process', 'console', 'Buffer'].map((g) => [
    g,
    'readonly',
  ]),
);

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'notebooks/**', 'bench/.data/**'] },
  { rules: eslintRecommended },
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX, sqlcdc: { rules: { 'no-cycle': noCycle } } },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })] },
    rules: {
      'sqlcdc/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones }],
      // An async function without `await` is how a promise-returning interface (a command, a test
      // helper's callback) is implemented when the implementation happens to be synchronous.
      '@typescript-eslint/require-await': 'off',
      // `_` names a value that must be bound but is not used (a loop variable, a skipped element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { varsIgnorePattern: '^_$', argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Re-rejecting a caught error passes on whatever was thrown.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // EXIT unwinds the cell with a signal that is not an error.
      '@typescript-eslint/only-throw-error': [
        'error',
        { allow: [{ from: 'file', name: 'ExitSignal', path: 'runtime/commands/command.ts' }] },
      ],
      // These load on first use, not with the interpreter (startup time: see the comment at each require);
      // koffi is optional besides: where it cannot load, files are published under temp names. s3rver,
      // the tests' S3 server, has no types.
      '@typescript-eslint/no-require-imports': [
        'error',
        {
          allow: [
            '^undici$',
            '^node-forge$',
            '^basic-ftp$',
            '^hyparquet$',
            '^hyparquet/src/column\\.js$',
            '^hyparquet-writer$',
            '^koffi$',
            '^@aws-sdk/client-s3$',
            '^@aws-sdk/lib-storage$',
            '^@azure/storage-blob$',
            '^s3rver(/lib/models/account)?$',
            '^\\./(backend|history)$',
            '^\\./(postgres|sqlite)$',
            '^\\./(data|string|date|other|operators)$',
            '^\\.\\./functions/evaluate$',
            '^@xmldom/xmldom$',
            '^saxes$',
            '^xpath$',
            '^cli-table3/src/utils$',
            '^\\.\\./webhook/session-listener$',
            '^\\./load-positions$',
            '^\\.\\./runtime/(index|interpreter|check)$',
          ],
        },
      ],
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
    },
  },
  {
    // Plain JavaScript (install.js runs before anything is compiled; the lint config itself) is not in tsconfig.json.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: nodeGlobals, sourceType: 'commonjs' },
    // CommonJS: require() is how these files import.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
);
