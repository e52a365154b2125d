import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { renderText } from '../../runtime/dataset/render';
import type { Dataset } from '../../runtime/dataset/dataset';
import type { Result } from '../../runtime/results';
import type { Session } from '../../runtime/session';
import { runCli } from '../helpers/cli';
import { CAPTURE, cell, Folder, names, rows } from './pipelines';

const folders: Folder[] = [];
after(async () => {
  for (const f of folders) await f.close();
});

type Table = Extract<Result, { kind: 'table' }>;

async function magic(session: Session, line: string): Promise<Result[]> {
  return session.run(line);
}

function tables(results: Result[]): Table[] {
  return results.filter((r): r is Table => r.kind === 'table');
}

/** A session of pipeline `shop` that captured orders twice into its store and once into logs/. */
async function captured(): Promise<{ f: Folder; s: Session }> {
  const f = new Folder();
  folders.push(f);
  const s = f.session({ pipeline: 'shop' });
  f.orders([
    [1, 'new', 10],
    [2, 'new', 20],
  ]);
  await cell(s, `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH CDCMARKER 'op';`);
  f.orders([
    [2, 'paid', 20],
    [3, 'new', 30],
  ]);
  await cell(s, `${CAPTURE} CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH CDCMARKER 'op';`);
  await cell(s, `${CAPTURE} CAPTURE 'copy' WITH PATH 'logs';`);
  return { f, s };
}

const column = (ds: Dataset, name: string) => ds.rows().map((r) => r[names(ds).indexOf(name)]);

test("%changelog list: the pipeline's store by default, or a folder; the table sqlcdc changelog list prints", async () => {
  const { f, s } = await captured();
  const [store] = tables(await magic(s, '%changelog list'));
  const storeFolder = join(f.workspace, 'changelogs', 'shop');
  assert.equal(store.title, `change logs in ${storeFolder}`);
  assert.deepEqual(names(store.dataset), [
    'file',
    'execution id',
    'pipeline',
    'inserts',
    'updates',
    'deletes',
    'bytes',
    'security',
  ]);
  const files = f.logs('ws/changelogs/shop');
  assert.deepEqual(column(store.dataset, 'file'), files);
  assert.deepEqual(column(store.dataset, 'inserts').map(Number), [2, 1]);
  assert.deepEqual(column(store.dataset, 'deletes').map(Number), [0, 1]);
  assert.deepEqual(
    column(store.dataset, 'execution id').map(String),
    files.map((n) => /_(\d+)\.eds$/.exec(n)![1]),
  );

  const [logs] = tables(await magic(s, '%changelog list logs'));
  assert.deepEqual(column(logs.dataset, 'file'), f.logs('logs'));
  const cli = await runCli(f.dir, ['changelog', 'list', 'logs']);
  assert.equal(cli.stdout, `${renderText(logs.dataset, { limit: logs.limit })}\n`, 'one implementation');

  mkdirSync(join(f.dir, 'empty'));
  assert.deepEqual(await magic(s, '%changelog list empty'), [
    { kind: 'message', text: `no change log in ${join(f.dir, 'empty')}` },
  ]);
  // A folder that is not there is a mistake, as for sqlcdc changelog list (which exits 2).
  await assert.rejects(magic(s, '%changelog list nowhere'), /no folder .*nowhere/);
  assert.equal((await runCli(f.dir, ['changelog', 'list', 'nowhere'])).code, 2);
});

test("changelog list NAME: a pipeline's or job's store when no folder of that name is there", async () => {
  const { f, s } = await captured();
  const files = f.logs('ws/changelogs/shop');
  const [byName] = tables(await magic(s, '%changelog list shop'));
  assert.equal(byName.title, `change logs in ${join(f.workspace, 'changelogs', 'shop')}`);
  assert.deepEqual(column(byName.dataset, 'file'), files);
  const cli = await runCli(f.dir, ['changelog', 'list', 'shop', '--workspace', f.workspace, '--output', 'json']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(
    (JSON.parse(cli.stdout) as { fileName: string }[]).map((e) => e.fileName),
    files,
  );
  // A folder of that name in the working directory comes first; a path is never a store's name.
  mkdirSync(join(f.dir, 'shop'));
  assert.deepEqual(await magic(s, '%changelog list shop'), [
    { kind: 'message', text: `no change log in ${join(f.dir, 'shop')}` },
  ]);
  const folder = await runCli(f.dir, ['changelog', 'list', 'shop', '--workspace', f.workspace, '--output', 'json']);
  assert.equal(folder.stdout, '[]\n');
  assert.equal((await runCli(f.dir, ['changelog', 'list', './shopx', '--workspace', f.workspace])).code, 2);
  assert.equal((await runCli(f.dir, ['changelog', 'list', 'shopx', '--workspace', f.workspace])).code, 2);
});

test('an empty default listing says which pipelines the workspace store has logs of', async () => {
  const { f, s } = await captured();
  await magic(s, '%pipeline other');
  assert.deepEqual(await magic(s, '%changelog list'), [
    {
      kind: 'message',
      text: `no change log in ${join(f.workspace, 'changelogs', 'other')}; the store has logs of shop (%changelog list shop)`,
    },
  ]);
  mkdirSync(join(f.dir, 'empty'));
  assert.deepEqual(await magic(s, '%changelog list empty'), [
    { kind: 'message', text: `no change log in ${join(f.dir, 'empty')}` },
  ]);
  const cli = await runCli(join(f.dir, 'empty'), ['changelog', 'list', '--workspace', f.workspace]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(
    cli.stderr,
    "no change log in this folder; the workspace's store has logs of shop (sqlcdc changelog list shop)\n",
  );
  const named = await runCli(f.dir, ['changelog', 'list', 'empty', '--workspace', f.workspace]);
  assert.equal(named.stderr, '', 'a folder asked for by name gets no hint');
});

test('%changelog show: a log name shows its newest log, a file shows that one: the header facts, then each stream', async () => {
  const { f, s } = await captured();
  const files = f.logs('ws/changelogs/shop');
  const out = await magic(s, '%changelog show orders');
  const facts = out[0];
  assert.equal(facts.kind, 'message');
  const text = (facts as { text: string }).text;
  assert.match(
    text,
    new RegExp(`^change log +${join(f.workspace, 'changelogs', 'shop', files[1]).replace(/[.]/g, '\\.')}\n`),
  );
  assert.match(text, /\nexecution id +\d+ \(\d{4}-\d\d-\d\dT[\d:.]+Z\)\n/);
  assert.match(text, /\npipeline +shop\n/);
  assert.match(text, /\nkeys +id\n/);
  assert.match(text, /\nmarker +op\n/);
  assert.match(text, /\ncounts +1 insert, 1 update, 1 delete\n/);
  assert.match(text, /\nsecurity +not encrypted, not signed\n/);
  assert.match(text, /\nschema +id string, status string, amount string, op char\[1\]$/);
  const [upserts, deletes] = tables(out);
  assert.equal(upserts.title, 'upserts: 2 rows');
  assert.deepEqual(rows(upserts.dataset), [
    ['2', 'paid', '20', 'U'],
    ['3', 'new', '30', 'I'],
  ]);
  assert.equal(deletes.title, 'deletes: 1 row');
  assert.deepEqual(rows(deletes.dataset), [['1', null, null, 'D']]);

  // The first log, by its file name in the store, then by a path from the working directory.
  const first = tables(await magic(s, `%changelog show ${files[0]}`));
  assert.deepEqual(rows(first[0].dataset), [
    ['1', 'new', '10', 'I'],
    ['2', 'new', '20', 'I'],
  ]);
  const copy = f.logs('logs')[0];
  assert.equal(tables(await magic(s, `%changelog show logs/${copy}`))[0].dataset.rowCount, 2);

  // %limit bounds the rows shown; the title keeps the stream's size.
  await magic(s, '%limit 1');
  const [cut] = tables(await magic(s, '%changelog show orders'));
  assert.equal(cut.title, 'upserts: 2 rows (the first 1)');
  assert.equal(cut.dataset.rowCount, 1);
});

test('%changelog mistakes: a usage message, a missing log named with where it was looked for, CHECK_SIGNATURE on an unsigned log', async () => {
  const { f, s } = await captured();
  await assert.rejects(
    magic(s, '%changelog'),
    /usage: %changelog list \[FOLDER\|PIPELINE\] \| %changelog show FILE\|NAME \[--check-signature\]/,
  );
  await assert.rejects(magic(s, '%changelog drop orders'), /unknown %changelog subcommand 'drop'/);
  await assert.rejects(magic(s, '%changelog show'), /%changelog show needs one change log file or name/);
  await assert.rejects(
    magic(s, '%changelog show nope.eds'),
    new RegExp(`no change log nope\\.eds in ${f.dir} or ${join(f.workspace, 'changelogs', 'shop')}`),
  );
  await assert.rejects(magic(s, '%changelog show customers'), /no change log named 'customers' in /);
  await assert.rejects(magic(s, '%changelog show orders --check-signature'), /the change log is not signed/);
  await assert.rejects(magic(s, '%changelog show orders --verify'), /unknown option --verify/);
});
