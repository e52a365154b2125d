import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/session';

/*
 * Issue 10's contracts as a REPL user and a CLI user meet them: the REPL's pipeline is `repl` and keys
 * the CDC state and the store; `%pipeline NAME` sets it; `sqlcdc changelog show FILE --output table`
 * is the default rendering; `sqlcdc changelog list` without FOLDER lists the working directory.
 */

const LIMITS = { timeout: 60_000 };

test(
  'in the REPL the pipeline is `repl`: it names the store and the state; %pipeline NAME sets it, %pipeline shows it',
  LIMITS,
  async () => {
    const dir = tempDir('issue10-repl');
    writeFileSync(join(dir, 'orders.csv'), 'id,status\n1,new\n2,new\n');
    const input = [
      '%pipeline',
      "SELECT * FROM DRIVE 'orders.csv';",
      "CAPTURE ON KEYS 'id';",
      '%pipeline nightly',
      '%pipeline',
      "CAPTURE 'orders' ON KEYS 'id';",
      '%changelog list',
      '',
    ].join('\n');
    const r = await runCli(dir, ['repl', '--workspace', 'ws'], { input });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^pipeline: repl\n/);
    assert.match(r.stdout, /\npipeline: nightly\npipeline: nightly\n/, 'set, then shown');

    const store = join(dir, 'ws', 'changelogs');
    const [repl] = readdirSync(join(store, 'repl'));
    assert.match(
      repl,
      /^repl_\d+\.eds$/,
      'no name: <pipeline>_<execution id>.eds in <workspace>/changelogs/<pipeline>/',
    );
    assert.ok(r.stdout.includes(`change log ${join(store, 'repl', repl)}: 2 inserts, 0 updates, 0 deletes\n`));
    assert.ok(existsSync(join(dir, 'ws', 'cdc', 'repl', 'repl.state')), 'the state of (repl, repl)');

    const [orders] = readdirSync(join(store, 'nightly'));
    assert.match(orders, /^orders_\d+\.eds$/);
    assert.ok(existsSync(join(dir, 'ws', 'cdc', 'nightly', 'orders.state')), 'the state of (nightly, orders)');
    assert.ok(r.stdout.includes(`│ ${orders} │`), '%changelog list shows the store of the pipeline set');
  },
);

test(
  'sqlcdc changelog show FILE --output table is the default rendering; list without FOLDER lists the working directory',
  LIMITS,
  async () => {
    const dir = tempDir('issue10-cli');
    writeFileSync(join(dir, 'orders.csv'), 'id,status\n1,new\n2,new\n');
    writeFileSync(
      join(dir, 'capture.sql'),
      "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE 'orders.eds' ON KEYS 'id' WITH PATH '.';\n",
    );
    const run = await runCli(dir, ['run', 'capture.sql', '--workspace', 'ws']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, 'change log orders.eds: 2 inserts, 0 updates, 0 deletes\n');

    const table = await runCli(dir, ['changelog', 'show', 'orders.eds', '--output', 'table']);
    const plain = await runCli(dir, ['changelog', 'show', 'orders.eds']);
    assert.equal(table.code, 0, table.stderr);
    assert.equal(table.stdout, plain.stdout);
    assert.match(table.stdout, /^pipeline {7}capture$/m);
    assert.match(table.stdout, /^counts {9}2 inserts, 0 updates, 0 deletes$/m);

    const list = await runCli(dir, ['changelog', 'list', '--output', 'json']);
    assert.equal(list.code, 0, list.stderr);
    const entries = JSON.parse(list.stdout) as { fileName: string; pipeline: string }[];
    assert.deepEqual(
      Object.keys(entries[0]),
      ['path', 'fileName', 'name', 'executionId', 'size', 'encrypted', 'signed', 'pipeline', 'createdAt', 'counts'],
      'the keys docs/changelog.md names',
    );
    assert.deepEqual((entries[0] as unknown as { counts: unknown }).counts, { inserts: 2, updates: 0, deletes: 0 });
    assert.deepEqual(
      entries.map((e) => [e.fileName, e.pipeline]),
      [['orders.eds', 'capture']],
    );
  },
);
