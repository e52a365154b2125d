import { dirname, join } from 'node:path';

/**
 * chevrotain's values, loaded from the single-file build its package ships (`lib/chevrotain.mjs`,
 * the same version's code) instead of its entry point, which loads some six hundred lodash-es
 * modules one by one: 15 ms instead of 180 ms, most of the interpreter's load time (paid by a
 * kernel's first cell and the REPL's start). Every value import of chevrotain goes through here, so
 * there is one copy of its classes and of EOF; type imports may name 'chevrotain' directly.
 */
type Chevrotain = typeof import('chevrotain');

// The package's exports map names only its entry (lib/src/api.js); the bundle sits beside lib/src.
const bundle = join(dirname(require.resolve('chevrotain')), '..', 'chevrotain.mjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file path, which `import` cannot name
const chevrotain = require(bundle) as Chevrotain;

export const { createToken, Lexer, EmbeddedActionsParser, EOF, LLkLookaheadStrategy } = chevrotain;
