import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';
import { call, startServe } from '../helpers/serve';

/**
 * Workspace files of JSON that a user's edit, a copy cut short or a disk fault damaged: every command
 * reading one fails with an error naming the file and saying what is wrong with it (exit 1), never an
 * internal error (exit 70) that leaves the user to guess which of the workspace's files it is.
 */
const damaged: { file: string; content: string; reason: RegExp }[] = [
  { file: 'jobs/orders/job.json', content: '{"name": "orders", "kind"', reason: /is not valid JSON/ },
  { file: 'jobs/orders/job.json', content: '[]\n', reason: /does not hold a JSON object/ },
  { file: 'webhook/keys.json', content: '[{"id": "1a2b3c4d", "na', reason: /is not valid JSON/ },
  { file: 'webhook/keys.json', content: '{}\n', reason: /does not hold a JSON array/ },
  { file: 'connections.json', content: '[{"name": "api", ', reason: /is not valid JSON/ },
  { file: 'connections.json', content: 'null\n', reason: /does not hold a JSON array/ },
];

/** The commands that read each file. */
const readers: Record<string, string[][]> = {
  'jobs/orders/job.json': [
    ['job', 'show', 'orders'],
    ['job', 'list'],
    ['job', 'run', 'orders'],
    ['job', 'trigger', 'orders', '--on', 'success', '--run', 'report'],
    ['job', 'trigger', 'report', '--on', 'success', '--run', 'orders'],
  ],
  'webhook/keys.json': [
    ['webhook', 'key', 'list'],
    ['webhook', 'key', 'new'],
    ['webhook', 'key', 'revoke', 'k'],
  ],
  'connections.json': [['run', 'c.sql']],
};

for (const { file, content, reason } of damaged) {
  test(`a damaged ${file} (${content.trim()}): each command reading it names it and says why`, async () => {
    const dir = tempDir('damaged-files');
    writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
    writeFileSync(join(dir, 'c.sql'), 'SELECT * FROM HTTP [api] (GET /orders);\n');
    for (const job of ['orders', 'report']) {
      const made = await runCli(dir, ['job', 'create', job, '--writer', 'w.sql', '--workspace', 'ws']);
      assert.equal(made.code, 0, made.stderr);
    }
    mkdirSync(join(dir, 'ws', 'webhook'), { recursive: true });
    writeFileSync(join(dir, 'ws', file), content);
    for (const args of readers[file]) {
      const r = await runCli(dir, [...args, '--workspace', 'ws']);
      assert.equal(r.code, 1, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.includes(join(dir, 'ws', file)), `sqlcdc ${args.join(' ')} names the file: ${r.stderr}`);
      assert.match(r.stderr, reason, `sqlcdc ${args.join(' ')}`);
      assert.doesNotMatch(r.stderr, /internal error/);
    }
  });
}

test('a listener whose keys.json is damaged while it runs answers 500 naming the file, and goes on once it is mended', async () => {
  const dir = tempDir('damaged-files');
  writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
  const made = await runCli(dir, ['job', 'create', 'orders', '--writer', 'w.sql', '--webhook', '--workspace', 'ws']);
  assert.equal(made.code, 0, made.stderr);
  const guid = made.stdout.trim();
  const key = await runCli(dir, ['webhook', 'key', 'new', '--workspace', 'ws']);
  assert.equal(key.code, 0, key.stderr);
  const serve = await startServe(dir, ['--workspace', 'ws']);
  try {
    const headers = { authorization: `Bearer ${key.stdout.trim()}`, 'content-type': 'application/json' };
    const payload = { query: { guid }, headers, body: '{"id": 1}' };
    assert.equal((await call(serve.url, payload)).status, 200);
    const keys = join(dir, 'ws', 'webhook', 'keys.json');
    const whole = readFileSync(keys);
    writeFileSync(keys, '[{"id": "1a2b');
    const refused = await call(serve.url, payload);
    assert.equal(refused.status, 500, refused.text);
    assert.match((refused.json as { error: string }).error, /keys\.json is not valid JSON/);
    writeFileSync(keys, whole);
    assert.equal((await call(serve.url, payload)).status, 200, 'the listener still runs');
  } finally {
    await serve.stop();
  }
});
