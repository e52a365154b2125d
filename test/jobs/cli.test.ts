import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { tempDir } from '../helpers/session';

const LIMITS = { timeout: 120_000 };

async function cli(dir: string, args: string[]): Promise<string> {
  const r = await sqlcdc(dir, [...args, '--workspace', 'ws']);
  assert.equal(r.code, 0, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A project with a reader that captures `rows.csv` into `logs/` and a writer that writes the log's upserts to `out.csv`. */
function project(): string {
  const dir = tempDir('jobs-cli');
  writeFileSync(join(dir, 'rows.csv'), 'id\n1\n2\n');
  writeFileSync(
    join(dir, 'r.sql'),
    "SELECT * FROM DRIVE 'rows.csv';\nCAPTURE 'items' ON KEYS 'id' WITH PATH 'logs';\n",
  );
  writeFileSync(join(dir, 'w.sql'), "PUSH INTO DRIVE FORMAT CSV FILE 'out.csv';\n");
  return dir;
}

test(
  'job create prints the guid (a direct job: its reader and writer guids); job list --output json is exactly {name, kind, guid, reader, writer, webhook, triggers}',
  LIMITS,
  async () => {
    const dir = project();
    const readerOut = await cli(dir, ['job', 'create', 'extract', '--reader', 'r.sql']);
    assert.match(readerOut, /^[0-9a-f]{32}\n$/);
    const writerOut = await cli(dir, ['job', 'create', 'hook', '--writer', 'w.sql', '--webhook']);
    assert.match(writerOut, /^[0-9a-f]{32}\n$/);
    const directOut = await cli(dir, ['job', 'create', 'sync', '--reader', 'r.sql', '--writer', 'w.sql']);
    const direct = /^reader ([0-9a-f]{32})\nwriter ([0-9a-f]{32})\n$/.exec(directOut);
    assert.ok(direct, directOut);
    assert.notEqual(direct[1], direct[2]);
    await cli(dir, ['job', 'trigger', 'extract', '--on', 'success', '--run', 'hook']);

    const listed = JSON.parse(await cli(dir, ['job', 'list', '--output', 'json'])) as unknown;
    assert.deepEqual(listed, [
      {
        name: 'extract',
        kind: 'reader',
        guid: readerOut.trim(),
        reader: readerOut.trim(),
        writer: null,
        webhook: false,
        triggers: [{ on: 'success', run: 'hook' }],
      },
      {
        name: 'hook',
        kind: 'writer',
        guid: writerOut.trim(),
        reader: null,
        writer: writerOut.trim(),
        webhook: true,
        triggers: [],
      },
      {
        name: 'sync',
        kind: 'direct',
        guid: direct[1],
        reader: direct[1],
        writer: direct[2],
        webhook: false,
        triggers: [],
      },
    ]);

    const again = await sqlcdc(dir, ['job', 'create', 'hook', '--writer', 'w.sql', '--workspace', 'ws']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^sqlcdc: job 'hook' already exists/);

    assert.match(await cli(dir, ['job', 'show', 'sync']), new RegExp(`^writer guid +${direct[2]}$`, 'm'));
    await cli(dir, ['job', 'delete', 'sync']);
    assert.equal(existsSync(join(dir, 'ws', 'jobs', 'sync')), false);
    const names = (JSON.parse(await cli(dir, ['job', 'list', '--output', 'json'])) as { name: string }[]).map(
      (j) => j.name,
    );
    assert.deepEqual(names, ['extract', 'hook']);
    const gone = await sqlcdc(dir, ['job', 'delete', 'sync', '--workspace', 'ws']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no job 'sync'/);
  },
);

test(
  'changelog replay --job plays the log through a job with a writer; a reader-only job is refused, no run recorded',
  LIMITS,
  async () => {
    const dir = project();
    await cli(dir, ['job', 'create', 'extract', '--reader', 'r.sql']);
    await cli(dir, ['job', 'create', 'hook', '--writer', 'w.sql']);
    const ran = await sqlcdc(dir, ['job', 'run', 'extract', '--workspace', 'ws']);
    assert.equal(ran.code, 0, ran.stderr);
    const file = /change log (logs\/items_\d+\.eds): 2 inserts/.exec(ran.stderr);
    assert.ok(file, ran.stderr);

    const refused = await sqlcdc(dir, ['changelog', 'replay', file[1], '--job', 'extract', '--workspace', 'ws']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'sqlcdc: job extract has no writer to play a change log (a reader job writes logs; give the job that plays them)\n',
    );
    const runs = JSON.parse(await cli(dir, ['job', 'runs', 'extract', '--output', 'json'])) as { by: string }[];
    assert.deepEqual(
      runs.map((r) => r.by),
      ['run'],
    );

    const played = await sqlcdc(dir, ['changelog', 'replay', file[1], '--job', 'hook', '--workspace', 'ws']);
    assert.equal(played.code, 0, played.stderr);
    assert.equal(readFileSync(join(dir, 'out.csv'), 'utf8'), '1\r\n2\r\n');
  },
);

test(
  "a triggered job's error names that job's script, not the script of the job that triggered it",
  LIMITS,
  async () => {
    const dir = tempDir('jobs-cli');
    writeFileSync(join(dir, 'a.sql'), "PRINT 'a ran';\n");
    writeFileSync(join(dir, 'b.sql'), "PRINT 'b ran';\nSELECT * FROM DRIVE 'nowhere.csv';\n");
    await cli(dir, ['job', 'create', 'a', '--reader', 'a.sql']);
    await cli(dir, ['job', 'create', 'b', '--reader', 'b.sql']);
    await cli(dir, ['job', 'trigger', 'a', '--on', 'success', '--run', 'b']);
    const r = await sqlcdc(dir, ['job', 'run', 'a', '--workspace', 'ws']);
    assert.match(
      r.stderr,
      /[/\\]ws[/\\]jobs[/\\]b[/\\]reader\.sql:2:22: SELECT FROM DRIVE: file not found: nowhere\.csv\n {2}SELECT \* FROM DRIVE 'nowhere\.csv';\n/,
    );
  },
);
