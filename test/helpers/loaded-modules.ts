import { writeFileSync } from 'node:fs';

/**
 * Preloaded into a CLI child (`node --require`, see `modulesLoadedBy` in test/cli/startup.test.ts): on
 * exit it writes the files of every module the child loaded, one per line, to $SQLCDC_TEST_LOADED.
 */
process.on('exit', () => {
  writeFileSync(process.env.SQLCDC_TEST_LOADED!, Object.keys(require.cache).join('\n'));
});
