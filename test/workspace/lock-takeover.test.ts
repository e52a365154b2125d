import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/temp';

const CHILD = join(__dirname, 'lock-child.js');

function start(args: string[]): {
  child: ChildProcess;
  said: (word: string) => Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const waiters: { word: string; done: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters) if (out.includes(w.word)) w.done();
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const said = (word: string) =>
    new Promise<void>((done, failed) => {
      if (out.includes(word)) return done();
      waiters.push({ word, done });
      void exited.then(() => failed(new Error(`child exited before saying ${word}`)));
    });
  return { child, said, exited };
}

test('a lock whose holder was killed (kill -9), asked for by several processes at once: one at a time takes it over', async () => {
  const dir = tempDir('lock-takeover');
  const file = join(dir, 'job.json');
  for (let round = 0; round < 8; round++) {
    const holder = start(['--hold', file]);
    await holder.said('held');
    holder.child.kill('SIGKILL');
    await holder.exited;

    const journal = join(dir, `journal-${round}`);
    const go = join(dir, `go-${round}`);
    writeFileSync(journal, '');
    const waiters = Array.from({ length: 6 }, (_, i) =>
      start(['--enter', file, journal, go, i % 2 ? 'sync' : 'async']),
    );
    await Promise.all(waiters.map((w) => w.said('ready')));
    writeFileSync(go, '');
    assert.deepEqual(await Promise.all(waiters.map((w) => w.exited)), [0, 0, 0, 0, 0, 0]);

    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    assert.equal(lines.length, 12, lines.join('\n'));
    for (let i = 0; i < lines.length; i += 2) {
      const [what, pid] = lines[i].split(' ');
      assert.equal(what, 'enter', `round ${round}: two processes inside at once\n${lines.join('\n')}`);
      assert.equal(lines[i + 1], `leave ${pid}`, `round ${round}: two processes inside at once\n${lines.join('\n')}`);
    }
  }
});
