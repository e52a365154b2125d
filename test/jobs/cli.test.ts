import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
  'job create refuses a script that does not parse, placed in its file as run places it, and saves nothing',
  LIMITS,
  async () => {
    const dir = project();
    writeFileSync(join(dir, 'bad.sql'), "SELECT * FROM DRIVE 'rows.csv';\nPUSH INTO DRIVE FORMT CSV FILE 'out.csv';\n");
    const r = await sqlcdc(dir, [
      'job',
      'create',
      'sync',
      '--reader',
      'r.sql',
      '--writer',
      'bad.sql',
      '--workspace',
      'ws',
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    const [first, ...shown] = r.stderr.split('\n');
    assert.match(
      first,
      /^bad\.sql:2:17: PUSH INTO DRIVE: expected ';' or an option of PUSH INTO DRIVE .* but found 'FORMT'$/,
    );
    assert.deepEqual(shown, ["  PUSH INTO DRIVE FORMT CSV FILE 'out.csv';", `  ${' '.repeat(16)}^`, '']);
    assert.equal(existsSync(join(dir, 'ws', 'jobs', 'sync')), false);
    assert.equal(JSON.stringify(JSON.parse(await cli(dir, ['job', 'list', '--output', 'json']))), '[]');
  },
);

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
    const csv = await sqlcdc(dir, ['job', 'runs', 'hook', '--output', 'csv', '--workspace', 'ws']);
    assert.equal(csv.code, 2);
    assert.match(csv.stderr, /^sqlcdc: --output of job runs must be table or json, not 'csv'/);
    const gone = await sqlcdc(dir, ['job', 'delete', 'sync', '--workspace', 'ws']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no job 'sync'/);
    // A typo of a job's name, or of a trigger kind, is answered with the one meant.
    const typo = await sqlcdc(dir, ['job', 'run', 'hok', '--workspace', 'ws']);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /^sqlcdc: no job 'hok' in .*; did you mean hook\?\n/);
    const kind = await sqlcdc(dir, [
      'job',
      'trigger',
      'hook',
      '--on',
      'sucess',
      '--run',
      'extract',
      '--workspace',
      'ws',
    ]);
    assert.equal(kind.code, 2);
    assert.match(
      kind.stderr,
      /^sqlcdc: unknown trigger kind 'sucess' \(completion, success, success-with-data, failure\); did you mean success\?\n/,
    );
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
    // The table says a run's rows as a number: int under its name, right-aligned.
    const table = (await cli(dir, ['job', 'runs', 'extract'])).split('\n');
    const rows = table[1].split('│').findIndex((c) => c.trim() === 'rows');
    assert.equal(table[2].split('│')[rows].trim(), 'int', table.join('\n'));
    assert.match(table[4].split('│')[rows], /^ +2 $/, table.join('\n'));

    const played = await sqlcdc(dir, ['changelog', 'replay', file[1], '--job', 'hook', '--workspace', 'ws']);
    assert.equal(played.code, 0, played.stderr);
    assert.equal(readFileSync(join(dir, 'out.csv'), 'utf8'), '1\r\n2\r\n');
  },
);

test(
  'a secret in a connection URL query (api_key=, token=) is masked by job show and %connection list, as in HTTP errors',
  LIMITS,
  async () => {
    const dir = project();
    writeFileSync(
      join(dir, 'q.sql'),
      "%connection add api http://127.0.0.1:9/v1?api_key=QKEY1&region=eu\n%connection list\nPRINT 'ok';\n",
    );
    await cli(dir, ['job', 'create', 'q', '--writer', 'q.sql']);
    const shown = await cli(dir, ['job', 'show', 'q']);
    assert.ok(!shown.includes('QKEY1'), shown);
    assert.match(shown, /^%connection add api http:\/\/127\.0\.0\.1:9\/v1\?api_key=\*\*\*\*&region=eu$/m);
    const listed = await sqlcdc(dir, ['run', 'q.sql', '--workspace', 'ws']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stderr.includes('QKEY1'), listed.stderr);
    assert.match(listed.stderr, /api_key=\*\*\*\*&region=eu/);
  },
);

test(
  "job show says, for the LOAD its writer starts with, the folder, LOAD's watermark and the log the next run plays, with how many wait",
  LIMITS,
  async () => {
    const dir = project();
    const capture = async (rows: string) => {
      writeFileSync(join(dir, 'rows.csv'), `id\n${rows}\n`);
      await cli(dir, ['run', 'r.sql']);
    };
    await capture('1');
    await capture('1\n2');
    const [first, second] = readdirSync(join(dir, 'logs')).sort();
    const id = (log: string) => /_(\d+)\.eds$/.exec(log)![1];
    writeFileSync(
      join(dir, 'lw.sql'),
      "%limit 5\n-- the logs r.sql captured\nLOAD UPSERTS FROM 'items' PATH 'logs';\nPRINT 'played';\n",
    );
    await cli(dir, ['job', 'create', 'play', '--writer', 'lw.sql']);
    const load = async () => /^load +(.*)$/m.exec(await cli(dir, ['job', 'show', 'play']))?.[1];
    assert.equal(await load(), `items in logs: no watermark yet, next ${first} (2 logs waiting)`);
    await cli(dir, ['job', 'run', 'play']);
    assert.equal(await load(), `items in logs: watermark ${id(first)}, next ${second} (1 log waiting)`);
    await cli(dir, ['job', 'run', 'play']);
    assert.equal(await load(), `items in logs: watermark ${id(second)}, no log after it`);
    // The same as data: one object per LOAD, beside the job's settings and its scripts.
    const shown = JSON.parse(await cli(dir, ['job', 'show', 'play', '--output', 'json'])) as Record<string, unknown>;
    assert.deepEqual(shown.loads, [
      {
        script: 'writer',
        name: 'items',
        folder: 'logs',
        watermark: id(second),
        initialId: false,
        next: null,
        waiting: 0,
      },
    ]);
    assert.equal(shown.name, 'play');
    assert.equal(shown.kind, 'writer');
    assert.equal(shown.signingSecret, false);
    assert.equal(shown.highWatermark, null);
    assert.deepEqual(shown.scripts, { reader: null, writer: readFileSync(join(dir, 'lw.sql'), 'utf8').trimEnd() });
    const usage = await sqlcdc(dir, ['job', 'show', 'play', '--output', 'table', '--workspace', 'ws']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--output of job show must be text or json, not 'table'/);
    // A writer without LOAD has no such line; nor does a reader.
    await cli(dir, ['job', 'create', 'sync', '--reader', 'r.sql', '--writer', 'w.sql']);
    assert.doesNotMatch(await cli(dir, ['job', 'show', 'sync']), /^load/m);
    // A LOAD whose name cannot be worked out says why.
    writeFileSync(join(dir, 'bad.sql'), "LOAD UPSERTS FROM 'items_{{@nosuch}}' PATH 'logs';\nPRINT 'x';\n");
    await cli(dir, ['job', 'create', 'bad', '--writer', 'bad.sql']);
    assert.match(await cli(dir, ['job', 'show', 'bad']), /^load +cannot tell: unknown pipeline variable @nosuch/m);
    const bad = JSON.parse(await cli(dir, ['job', 'show', 'bad', '--output', 'json'])) as {
      loads: { script: string; error: string }[];
    };
    assert.equal(bad.loads.length, 1);
    assert.equal(bad.loads[0].script, 'writer');
    assert.match(bad.loads[0].error, /^unknown pipeline variable @nosuch/);
  },
);

test(
  "changelog replay reports a writer's error as job run does (file:line:col, statement, caret); a missing or damaged log is refused before anything runs, no run recorded",
  LIMITS,
  async () => {
    const dir = project();
    writeFileSync(join(dir, 'bad.sql'), "PRINT 'writing';\nPUSH INTO DRIVE FORMAT CSV FILE '{{nope}}.csv';\n");
    await cli(dir, ['job', 'create', 'extract', '--reader', 'r.sql']);
    await cli(dir, ['job', 'create', 'bad', '--writer', 'bad.sql']);
    const ran = await sqlcdc(dir, ['job', 'run', 'extract', '--workspace', 'ws']);
    const file = /change log (logs\/items_\d+\.eds)/.exec(ran.stderr)![1];

    const failed = await sqlcdc(dir, ['changelog', 'replay', file, '--job', 'bad', '--workspace', 'ws']);
    assert.equal(failed.code, 1);
    const script = join(dir, 'ws', 'jobs', 'bad', 'writer.sql');
    assert.match(failed.stderr, new RegExp(`^${script}:2:\\d+: PUSH INTO DRIVE: .*nope`, 'm'));
    assert.match(failed.stderr, /^ {2}PUSH INTO DRIVE FORMAT CSV FILE '\{\{nope\}\}\.csv';\n {2}\s*\^$/m);

    const missing = await sqlcdc(dir, ['changelog', 'replay', 'logs/none.eds', '--job', 'bad', '--workspace', 'ws']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^sqlcdc: cannot read logs\/none\.eds: no such file or folder\n$/);
    writeFileSync(join(dir, 'logs', 'junk.eds'), 'not a log');
    const junk = await sqlcdc(dir, ['changelog', 'replay', 'logs/junk.eds', '--job', 'bad', '--workspace', 'ws']);
    assert.equal(junk.code, 1);
    assert.match(junk.stderr, /^sqlcdc: change log junk\.eds: not a change log/);
    const runs = JSON.parse(await cli(dir, ['job', 'runs', 'bad', '--output', 'json'])) as { by: string }[];
    assert.deepEqual(
      runs.map((r) => r.by),
      ['replay'],
    );
  },
);

test(
  'a job name longer than 100 characters is refused with the rule (not an internal error); 100 works end to end',
  LIMITS,
  async () => {
    const dir = project();
    writeFileSync(join(dir, 'own.sql'), "SELECT * FROM DRIVE 'rows.csv';\nCAPTURE ON KEYS 'id';\n");
    const long = await sqlcdc(dir, ['job', 'create', 'j'.repeat(300), '--reader', 'own.sql', '--workspace', 'ws']);
    assert.equal(long.code, 1, long.stderr);
    assert.match(long.stderr, /^sqlcdc: 'j{300}' is not a job name \(.*at most 100 characters\)\n$/);
    assert.equal(existsSync(join(dir, 'ws', 'jobs', 'j'.repeat(300))), false);
    const name = 'j'.repeat(100);
    await cli(dir, ['job', 'create', name, '--reader', 'own.sql']);
    const ran = await sqlcdc(dir, ['job', 'run', name, '--workspace', 'ws']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stderr, new RegExp(`changelogs/${name}/${name}_\\d+\\.eds: 2 inserts`));
  },
);

test(
  "a triggered job's error names the triggered job's script, not the script of the job that triggered it",
  LIMITS,
  async () => {
    const dir = project();
    writeFileSync(join(dir, 'd.sql'), "SELECT * FROM DRIVE 'rows.csv';\n");
    writeFileSync(join(dir, 'f.sql'), "PRINT 'x';\nSELECT * FROM DRIVE 'nope.csv';\n");
    await cli(dir, ['job', 'create', 'data', '--reader', 'd.sql']);
    await cli(dir, ['job', 'create', 'fails', '--writer', 'f.sql']);
    await cli(dir, ['job', 'trigger', 'data', '--on', 'success', '--run', 'fails']);
    const ran = await sqlcdc(dir, ['job', 'run', 'data', '--workspace', 'ws']);
    assert.equal(ran.code, 0, ran.stderr);
    const script = join(dir, 'ws', 'jobs', 'fails', 'writer.sql');
    assert.match(ran.stderr, new RegExp(`^${script}:2:22: SELECT FROM DRIVE: file not found: nope\\.csv$`, 'm'));
    assert.ok(!ran.stderr.includes(join('jobs', 'data')), ran.stderr);
  },
);

test(
  'job triggers added by several processes at once are all kept (job.json is changed under a lock)',
  LIMITS,
  async () => {
    const dir = project();
    await cli(dir, ['job', 'create', 'extract', '--reader', 'r.sql']);
    const others = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    for (const o of others) await cli(dir, ['job', 'create', o, '--writer', 'w.sql']);
    await Promise.all(others.map((o) => cli(dir, ['job', 'trigger', 'extract', '--on', 'success', '--run', o])));
    const jobs = JSON.parse(await cli(dir, ['job', 'list', '--output', 'json'])) as {
      name: string;
      triggers: { run: string }[];
    }[];
    const extract = jobs.find((j) => j.name === 'extract')!;
    assert.deepEqual(extract.triggers.map((t) => t.run).sort(), others);
    assert.deepEqual(readdirSync(join(dir, 'ws', 'jobs', 'extract')).sort(), ['job.json', 'reader.sql']);
  },
);

test('a run record torn by a crash does not take the next run records with it', LIMITS, async () => {
  const dir = project();
  await cli(dir, ['job', 'create', 'extract', '--reader', 'r.sql']);
  const runs = join(dir, 'ws', 'jobs', 'extract', 'runs.jsonl');
  // What a process killed in the middle of an append leaves: a line without its end.
  writeFileSync(runs, '{"id":"1","by":"run","start":"2026-');
  for (let i = 0; i < 2; i++) assert.equal((await sqlcdc(dir, ['job', 'run', 'extract', '--workspace', 'ws'])).code, 0);
  const records = JSON.parse(await cli(dir, ['job', 'runs', 'extract', '--output', 'json'])) as { outcome: string }[];
  assert.deepEqual(
    records.map((r) => r.outcome),
    ['success', 'success'],
  );
});

test(
  '--option=value in a magic works as --option value; neither a bad option nor job show prints its value',
  LIMITS,
  async () => {
    const dir = project();
    writeFileSync(
      join(dir, 'eq.sql'),
      '%connection add a1 http://127.0.0.1:9/ --basic=bob:EQPW1\n%connection add a3 http://127.0.0.1:9/ --header="X-Key: EQPW3"\n%connection list\nPRINT \'ok\';\n',
    );
    const ran = await sqlcdc(dir, ['run', 'eq.sql', '--workspace', 'ws']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(!ran.stderr.includes('EQPW1'), ran.stderr);
    assert.match(ran.stderr, /"auth":\{"type":"basic","user":"bob","password":"\*\*\*\*"\}/);
    assert.match(ran.stderr, /"headers":\{"X-Key":"\*\*\*\*"\}/);
    await cli(dir, ['job', 'create', 'eq', '--writer', 'eq.sql']);
    const shown = await cli(dir, ['job', 'show', 'eq']);
    assert.match(shown, /^%connection add a1 http:\/\/127\.0\.0\.1:9\/ --basic=\*\*\*\*$/m);
    assert.match(shown, /^%connection add a3 http:\/\/127\.0\.0\.1:9\/ --header="X-Key: \*\*\*\*"$/m);
    assert.ok(!shown.includes('EQPW'), shown);
    writeFileSync(join(dir, 'bad.sql'), '%connection add a2 http://127.0.0.1:9/ --bsaic=bob:EQPW2\n');
    const bad = await sqlcdc(dir, ['run', 'bad.sql', '--workspace', 'ws']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown option --bsaic;/);
    assert.ok(!bad.stderr.includes('EQPW2'), bad.stderr);
  },
);

test('job show masks the value of %var set --encrypted and a %job --signing-secret in a script', LIMITS, async () => {
  const dir = project();
  writeFileSync(
    join(dir, 'vars.sql'),
    "%var set --encrypted shopkey VARSECRET1\n%var set shopkey2 --encrypted 'VARSECRET 2'\n%var set plain visible\n" +
      "%job update other --signing-secret whsec_VARSECRET3\nPRINT 'x';\n",
  );
  await cli(dir, ['job', 'create', 'vars', '--writer', 'vars.sql']);
  const shown = await cli(dir, ['job', 'show', 'vars']);
  assert.ok(!shown.includes('VARSECRET'), shown);
  assert.match(shown, /^%var set --encrypted shopkey \*\*\*\*$/m);
  assert.match(shown, /^%var set shopkey2 --encrypted \*\*\*\*$/m);
  assert.match(shown, /^%var set plain visible$/m);
  assert.match(shown, /^%job update other --signing-secret \*\*\*\*$/m);
});

test(
  "a password in a URL written in a script is not shown back: not in an error's line, nor by job show",
  LIMITS,
  async () => {
    const dir = project();
    writeFileSync(
      join(dir, 'inline.sql'),
      "SELECT * FROM HTTP (GET http://bob:INLINEPW9@127.0.0.1:9/x) WITH PAGING 'bogus';\n",
    );
    const ran = await sqlcdc(dir, ['run', 'inline.sql', '--workspace', 'ws']);
    assert.equal(ran.code, 1);
    assert.ok(!ran.stderr.includes('INLINEPW9'), ran.stderr);
    // The caret stays under what it points at, the masked password being shorter.
    const [, line, caret] = ran.stderr.split('\n');
    assert.equal(line, "  SELECT * FROM HTTP (GET http://bob:****@127.0.0.1:9/x) WITH PAGING 'bogus';");
    assert.equal(line.slice(caret.indexOf('^')), "bogus';");
    // job create refuses the script at the same place, as masked.
    const refused = await sqlcdc(dir, ['job', 'create', 'inline', '--reader', 'inline.sql', '--workspace', 'ws']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.split('\n')[1], line);
    assert.ok(!refused.stderr.includes('INLINEPW9'), refused.stderr);
    writeFileSync(join(dir, 'inline.sql'), 'SELECT * FROM HTTP (GET http://bob:INLINEPW9@127.0.0.1:9/x);\n');
    await cli(dir, ['job', 'create', 'inline', '--reader', 'inline.sql']);
    const shown = await cli(dir, ['job', 'show', 'inline']);
    assert.ok(!shown.includes('INLINEPW9'), shown);
    assert.match(shown, /GET http:\/\/bob:\*\*\*\*@127\.0\.0\.1:9\/x\)/);
    writeFileSync(
      join(dir, 'keyed.sql'),
      `SELECT * FROM HTTP (GET http://127.0.0.1:9/x) WITH HEADERS '{"X-Api-Key": "INLINEKEY8", "X-Trace": "t-1"}';\n`,
    );
    await cli(dir, ['job', 'create', 'keyed', '--reader', 'keyed.sql']);
    const keyed = await cli(dir, ['job', 'show', 'keyed']);
    assert.ok(keyed.includes(`HEADERS '{"X-Api-Key": "****", "X-Trace": "t-1"}'`), keyed);
    // Kept as written, so readable by its owner only, whether made by job create or a %%job cell.
    writeFileSync(
      join(dir, 'cell.sql'),
      '%%job cellmade writer\nSELECT * FROM HTTP (GET http://bob:PW@127.0.0.1:9/x);\n',
    );
    await cli(dir, ['run', 'cell.sql']);
    for (const [job, script] of [
      ['inline', 'reader'],
      ['cellmade', 'writer'],
    ])
      assert.equal(statSync(join(dir, 'ws', 'jobs', job, `${script}.sql`)).mode & 0o777, 0o600, `${job} ${script}`);
  },
);

test('job run and changelog replay count one row in the singular', LIMITS, async () => {
  const dir = project();
  writeFileSync(join(dir, 'rows.csv'), 'id\n1\n');
  await cli(dir, ['job', 'create', 'extract', '--reader', 'r.sql']);
  await cli(dir, ['job', 'create', 'hook', '--writer', 'w.sql']);
  const ran = await sqlcdc(dir, ['job', 'run', 'extract', '--workspace', 'ws']);
  assert.match(ran.stderr, /^job extract: success, 1 row \(run \d+\)$/m);
  const file = /change log (logs\/items_\d+\.eds)/.exec(ran.stderr)![1];
  const played = await sqlcdc(dir, ['changelog', 'replay', file, '--job', 'hook', '--workspace', 'ws']);
  assert.match(played.stderr, /^job hook: replay of .*: success, 1 row$/m);
});

test(
  "a secret given to job create's --signing-secret (a switch there) is not echoed: the error says how to give one",
  LIMITS,
  async () => {
    const dir = project();
    const secret = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    for (const args of [
      ['job', 'create', 'signed', '--writer', 'w.sql', '--signing-secret', secret],
      ['job', 'create', 'signed', '--writer', 'w.sql', `--signing-secret=${secret}`],
    ]) {
      const r = await sqlcdc(dir, [...args, '--workspace', 'ws']);
      assert.equal(r.code, 2);
      assert.match(
        r.stderr,
        /^sqlcdc: --signing-secret takes no value with job create \(it makes a secret and shows it once\); give your own with: job update NAME --signing-secret -\n/,
      );
      assert.ok(!r.stderr.includes(secret.slice(6)), r.stderr);
    }
    assert.ok(!existsSync(join(dir, 'ws', 'jobs', 'signed')), 'no job made');
  },
);
