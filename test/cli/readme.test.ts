import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { tempDir } from '../repl/harness';

/**
 * README.md's quick start runs as written: its ```sh and ```sql blocks are taken from the file, so an
 * example edited into something that no longer runs fails here, and the messages its prose quotes
 * are the ones printed.
 */
const README = readFileSync(resolve(__dirname, '../../../README.md'), 'utf8');
const LIMITS = { timeout: 60_000 };

/** The bodies of the fenced blocks of `lang` in the section under `heading`, in order. */
function blocks(heading: string, lang: string): string[] {
  const at = README.indexOf(`${heading}\n`);
  assert.ok(at >= 0, heading);
  const end = README.indexOf('\n#', at + heading.length);
  const section = README.slice(at, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]);
}

/** A text the README quotes after `lead`, as a pattern: `<id>` stands for an execution id. */
function quoted(lead: string): RegExp {
  const m = new RegExp(`${lead.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \`([^\`]+)\``).exec(README);
  assert.ok(m, lead);
  return new RegExp(m[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('<id>', '\\d+'));
}

test('README: "A first session" runs in the REPL as written', LIMITS, async () => {
  const dir = tempDir('readme');
  const [sh] = blocks('## A first session', 'sh');
  const printf = /^printf '(.*)' > items\.csv$/m.exec(sh);
  assert.ok(printf, sh);
  writeFileSync(join(dir, 'items.csv'), printf[1].replace(/\\n/g, '\n'));
  // What is typed at the prompts, piped in.
  const typed = blocks('## A first session', 'sql')[0]
    .split('\n')
    .map((line) => line.replace(/^(sqlcdc>| {3}\.\.\.>) ?/, ''))
    .join('\n');
  const r = await sqlcdc(dir, ['--workspace', 'ws'], { input: typed });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout + r.stderr, /^loaded 3 rows at \d{4}-\d\d-\d\dT/m);
  assert.match(r.stdout, /decimal\(10,2\)/);
});

test('README: "Capture changes, then play them" runs as written and prints what it says', LIMITS, async () => {
  const dir = tempDir('readme');
  const [reader, writer] = blocks('### Capture changes, then play them', 'sql');
  assert.match(reader, /^-- reader\.sql$/m);
  assert.match(writer, /^-- writer\.sql$/m);
  writeFileSync(join(dir, 'reader.sql'), reader);
  writeFileSync(join(dir, 'writer.sql'), writer);
  const run = async (script: string) => {
    const r = await sqlcdc(dir, ['run', script, '--workspace', 'ws']);
    assert.equal(r.code, 0, `${script}: ${r.stderr}`);
    return r.stderr;
  };
  writeFileSync(join(dir, 'orders.csv'), 'id,status\n1,new\n2,new\n');
  await run('reader.sql');
  await run('writer.sql');
  // One insert, one update, one delete: the change the README's message counts.
  writeFileSync(join(dir, 'orders.csv'), 'id,status\n1,shipped\n3,new\n');
  assert.match(await run('reader.sql'), quoted('`sqlcdc run reader.sql` prints'));
  assert.match(await run('writer.sql'), /1 inserted, 1 updated, 1 deleted/);
  assert.match(await run('writer.sql'), /no new change log of 'orders'/, 'says so when there is nothing new');
});
