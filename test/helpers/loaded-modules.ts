import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Preloaded into a child (`node --require`: a CLI command, see test/cli/startup.test.ts, or the
 * kernel, test/kernel/startup.test.ts): on exit it writes the files of every module the child
 * loaded, one per line, to $SQLCDC_TEST_LOADED.
 */
// node --test runs every file of dist/test/, this one too: there it has nowhere to write.
const target = process.env.SQLCDC_TEST_LOADED;
if (target) process.on('exit', () => writeFileSync(target, Object.keys(require.cache).join('\n')));

const DIST = join(__dirname, '..', '..');

/** The environment that makes a child list the modules it loaded in `list`. */
export const listingTo = (list: string) => ({ NODE_OPTIONS: `--require ${__filename}`, SQLCDC_TEST_LOADED: list });

/** The modules listed, as paths under dist/ (or node_modules/). */
export const listed = (list: string) =>
  readFileSync(list, 'utf8')
    .split('\n')
    .map((f) => relative(DIST, f));
