import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Result } from '../../runtime/index';
import { tempSession } from '../helpers/session';

/*
 * Issue 11's connection lines: the kind comes from the URL scheme; a mistake in the URL is an error
 * placed on the URL, never echoing a password.
 */

async function errorOf(s: ReturnType<typeof tempSession>['session'], line: string) {
  const results: Result[] = [];
  for await (const r of s.execute(line)) results.push(r);
  const error = results.find((r) => r.kind === 'error');
  assert.ok(error?.kind === 'error', line);
  return error.error;
}

test('a URL mistake in %connection add is placed on the URL: an unknown scheme, and sqlite: without a file', async () => {
  const { session } = tempSession({}, 'issue11-conn');
  for (const [line, message] of [
    [
      '%connection add e mysql://u:SECRETPW@h/db',
      /^'mysql:' is not a connection URL scheme \(known: http: https: sqlite: postgres: postgresql: ftp: ftps: s3: az:\)/,
    ],
    ['%connection add f sqlite:', /^sqlite: needs a database file \(sqlite:shop\.db\) or sqlite::memory:$/],
  ] as const) {
    const error = await errorOf(session, line);
    assert.match(error.message, message);
    assert.deepEqual([error.position?.line, error.position?.column], [1, line.lastIndexOf(' ') + 2], line);
    assert.doesNotMatch(error.message, /SECRETPW/);
  }
  await session.close();
});

test('sqlite:<file> is relative to the working directory and created there; sqlite::memory: is a database of its own', async () => {
  const { session, dir } = tempSession({}, 'issue11-conn');
  await session.run(
    '%connection add lite sqlite:shop.db\n%connection add mem sqlite::memory:\nEXEC ON DB [lite] (CREATE TABLE t (n INTEGER));\nEXEC ON DB [mem] (CREATE TABLE m (n INTEGER));',
  );
  assert.ok(existsSync(join(dir, 'shop.db')));
  await assert.rejects(session.run('SELECT * FROM DB [lite] (SELECT * FROM m);'), /no such table: m/);
  await session.run('SELECT * FROM DB [mem] (SELECT count(*) AS c FROM m);');
  assert.equal(session.dataset.rowCount, 1);
  await session.close();
});
