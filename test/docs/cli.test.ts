import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/session';
import { DocPage } from './harness';
import { replayTranscript, sh } from './shell';

/** docs/cli.md's terminal sessions replay with this build's `sqlcdc` and print what the page shows. */
const page = new DocPage('cli.md');
const ITEMS = 'id,name,amount\n1,lamp,12.50\n2,"fridge, large",499.99\n3,door,80\n';

test('sqlcdc run: the load.sql session', async () => {
  const dir = tempDir('docs-cli');
  writeFileSync(join(dir, 'items.csv'), ITEMS);
  const block = page.take('$ cat load.sql', 'sh');
  await replayTranscript(dir, block.code, `cli.md:${block.line}`);
});

test('sqlcdc run: the error of bad.sql, placed and with its exit code', async () => {
  const dir = tempDir('docs-cli');
  const block = page.take('$ cat bad.sql', 'text');
  await replayTranscript(dir, block.code, `cli.md:${block.line}`);
});

test('job update: settings switch, a secret from stdin is never printed', async () => {
  const dir = tempDir('docs-cli');
  writeFileSync(join(dir, 'w.sql'), "LOAD UPSERTS FROM 'orders';\n");
  assert.equal((await sh(dir, 'sqlcdc job create orders --writer w.sql')).code, 0);
  const block = page.take('sqlcdc job update orders --webhook', 'sh');
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const lines = block.code.trim().split('\n');
  const said: string[] = [];
  for (const line of lines) {
    const r = await sh(dir, line, { SVIX_SECRET: secret });
    assert.equal(r.code, 0, `${line}: ${r.stderr}`);
    assert.ok(!`${r.stdout}${r.stderr}`.includes(secret.slice(6)), 'the secret is never printed');
    said.push(r.stdout.trim());
  }
  // The line the prose quotes is the one the secret from stdin gives.
  const shown = /\(`(job orders: [^`]+)`\)/.exec(block.before)![1];
  assert.deepEqual(said, [
    'job orders: webhook enabled, save sample no, signing secret none',
    shown,
    'job orders: webhook not enabled, save sample no, signing secret none',
  ]);
});

test('the usage lines at the top of the page are the ones sqlcdc --help prints', async () => {
  const r = await sh(tempDir('docs-cli'), 'sqlcdc --help');
  assert.equal(r.code, 0);
  const usage = /^Usage:\n([\s\S]*?)\n\n/.exec(r.stdout)![1].replace(/^ {2}/gm, '');
  assert.equal(`${usage}\n`, page.blocks[0].code);
});

test('every example of docs/cli.md ran', () => page.assertEveryExampleRan());
