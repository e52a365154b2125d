import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/temp';
import { SQLCDC } from '../repl/harness';

/** Every temp file under `dir`: a dot name with `.tmp` in it. */
function temps(dir: string): { path: string; size: number }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => /(^|\/)\.[^/]*\.tmp/.test(p))
    .map((p) => ({ path: p, size: statSync(join(dir, p), { throwIfNoEntry: false })?.size ?? 0 }));
}

async function bigSource(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('id,v\n');
  for (let i = 0; i < 1_500_000; i += 10_000) {
    let block = '';
    for (let j = i; j < i + 10_000; j++) block += `${j},value number ${j}\n`;
    if (!out.write(block)) await new Promise<void>((go) => out.once('drain', () => go()));
  }
  out.end();
  await finished(out);
}

const writers = [
  {
    what: 'CAPTURE writing a change log',
    script: "SELECT * FROM DRIVE 'src.csv';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id';\n",
    where: 'ws',
    // The log's own temp file: the workspace's small files (its key, the run records) are renamed
    // within a millisecond of their first bytes, and a kill aimed at one found it gone (flaky in CI).
    temp: /\.eds/,
  },
  {
    what: 'SINK INTO DRIVE',
    script: "SELECT * FROM DRIVE 'src.csv';\nSINK INTO DRIVE FORMAT CSV FILE 'out/x.csv';\n",
    where: 'out',
    temp: /x\.csv/,
  },
];

for (const { what, script, where, temp } of writers) {
  test(`${what} killed (kill -9) mid-write: the next run removes its temp file`, async () => {
    const dir = tempDir('dead-temps');
    writeFileSync(join(dir, 's.sql'), script);
    await bigSource(join(dir, 'src.csv'));
    const child = spawn(process.execPath, [SQLCDC, 'run', 's.sql', '--workspace', 'ws'], { cwd: dir });
    child.stdout.resume();
    child.stderr.resume();
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    let ended = false;
    void exited.then(() => (ended = true));
    // Killed once its temp file has bytes: in the middle of writing it.
    const writing = () =>
      existsSync(join(dir, where)) && temps(join(dir, where)).some((t) => t.size > 0 && temp.test(t.path));
    while (!ended && !writing()) await new Promise((go) => setTimeout(go, 5));
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', 'killed before it ended');
    assert.ok(temps(join(dir, where)).length > 0, 'the killed writer left a temp file');

    writeFileSync(join(dir, 'src.csv'), 'id,v\n1,a\n');
    const next = await runCli(dir, ['run', 's.sql', '--workspace', 'ws']);
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(temps(dir), [], 'no temp file left');
  });
}

test("another writer starting in the folder while SINK INTO DRIVE writes: the live writer's temp file is left alone", async () => {
  const dir = tempDir('dead-temps');
  writeFileSync(join(dir, 'big.sql'), "SELECT * FROM DRIVE 'src.csv';\nSINK INTO DRIVE FORMAT CSV FILE 'out/x.csv';\n");
  writeFileSync(
    join(dir, 'small.sql'),
    "SELECT * FROM DRIVE 'one.csv';\nSINK INTO DRIVE FORMAT CSV FILE 'out/y.csv';\n",
  );
  writeFileSync(join(dir, 'one.csv'), 'id,v\n1,a\n');
  await bigSource(join(dir, 'src.csv'));
  const child = spawn(process.execPath, [SQLCDC, 'run', 'big.sql', '--workspace', 'ws'], { cwd: dir });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
  let ended = false;
  void exited.then(() => (ended = true));
  try {
    let writing: string | undefined;
    while (!ended && !(writing = temps(dir).find((t) => t.size > 0)?.path))
      await new Promise((go) => setTimeout(go, 5));
    assert.ok(writing, 'the big SINK writes its temp file');
    // Stopped there, alive: a writer still at work, however fast this machine writes the rest.
    child.kill('SIGSTOP');
    assert.ok(
      temps(dir).some((t) => t.path === writing),
      'stopped while writing',
    );
    const small = await runCli(dir, ['run', 'small.sql', '--workspace', 'ws']);
    assert.equal(small.code, 0, small.stderr);
    assert.ok(readdirSync(join(dir, 'out')).includes('y.csv'));
    // Its writer is alive: the other run left it there.
    assert.ok(
      temps(dir).some((t) => t.path === writing),
      `${writing} was removed under its live writer`,
    );
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
});
