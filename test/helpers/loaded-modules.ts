import { writeFileSync } from 'node:fs';

/**
 * Preloaded into a CLI child (`node --require`, see `modulesLoadedBy` in test/cli/startup.test.ts): on
 * exit it writes the files of every module the child loaded, one per line, to $SQLCDC_TEST_LOADED.
 */
// node --test runs every file of dist/test/, this one too: there it has nowhere to write.
const target = process.env.SQLCDC_TEST_LOADED;
if (target) process.on('exit', () => writeFileSync(target, Object.keys(require.cache).join('\n')));
