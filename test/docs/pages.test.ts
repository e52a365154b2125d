import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pagesWithExamples } from './harness';

/**
 * Every page of docs/ with an example to run has a test that runs it: test/docs/<page>.test.ts, whose
 * last test checks that it ran every example of the page that no `example: not run — <reason>` excuses.
 * So a page that gets its first example, or a new page, cannot go untested.
 */
const ELSEWHERE: Record<string, string> = {
  'push.md': '../targets/push-docs.test.js',
};

test('every docs page with examples has the test that runs them', () => {
  const missing = pagesWithExamples().filter(
    (page) => !existsSync(join(__dirname, ELSEWHERE[page] ?? `${page.replace(/\.md$/, '')}.test.js`)),
  );
  assert.deepEqual(missing, []);
});
