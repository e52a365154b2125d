import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readChangeLog } from '../../runtime/changelog/read';
import { tempDir } from '../helpers/session';

/** A safety net so a hung child fails the test instead of the run; nothing here depends on timing. */
const LIMITS = { timeout: 600_000 };
const CHILD = join(__dirname, 'capture-child.js');

/** Source records: 1M, of which the second version updates 30%, deletes 5% and adds 5% more. */
const N = 1_000_000;
const updated = (i: number) => i % 10 >= 1 && i % 10 <= 3;
const deleted = (i: number) => i % 20 === 0;

function writeSource(dir: string, version: 1 | 2): void {
  const lines = ['id,status,amount'];
  for (let i = 0; i < N; i++) {
    if (version === 2 && deleted(i)) continue;
    lines.push(`${i},${version === 2 && updated(i) ? `changed ${i % 5}` : `s${i % 7}`},${i % 1000}`);
  }
  if (version === 2) for (let i = N; i < N + N / 20; i++) lines.push(`${i},new,${i % 1000}`);
  writeFileSync(join(dir, 'big.csv'), `${lines.join('\n')}\n`);
}

interface Child {
  /** Resolves with the line once the child printed it. */
  said(line: string): Promise<void>;
  output(): string;
  kill(): Promise<NodeJS.Signals | null>;
  /** Lets a child that captured exit; resolves with its exit code. */
  finish(): Promise<number | null>;
}

function capture(dir: string): Child {
  const child = spawn(process.execPath, [CHILD, '--capture', dir, join(dir, 'ws')], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiting: { line: string; resolve: () => void; reject: (e: Error) => void }[] = [];
  const settle = () => {
    for (const w of waiting.splice(0)) {
      if (out.includes(`${w.line}\n`)) w.resolve();
      else if (child.exitCode !== null || child.signalCode !== null)
        w.reject(new Error(`the child ended without saying '${w.line}': ${err}`));
      else waiting.push(w);
    }
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((out += d), settle()));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      settle();
    }),
  );
  return {
    said: (line) => new Promise((resolve, reject) => (waiting.push({ line, resolve, reject }), settle())),
    output: () => out,
    kill: async () => {
      child.kill('SIGKILL');
      return (await exited).signal;
    },
    finish: async () => {
      child.stdin.end();
      const { code } = await exited;
      assert.equal(code, 0, err);
      return code;
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const logsOf = (dir: string) =>
  readdirSync(join(dir, 'logs'))
    .filter((f) => f.endsWith('.eds'))
    .sort();

/** Polls the log folder until `seen` holds (a child writing its log), for at most the test's timeout. */
async function until(dir: string, seen: (names: string[]) => boolean): Promise<void> {
  while (!seen(readdirSync(join(dir, 'logs')))) await sleep(2);
}

/**
 * Checks one log of the second version's changes: it must hold all of them, exactly (a log is whole,
 * never a part of a run's changes).
 */
async function checkLog(path: string): Promise<void> {
  const log = await readChangeLog(path);
  const expectedUpserts = N * 0.3 + N / 20;
  assert.deepEqual(log.header.counts, { inserts: N / 20, updates: N * 0.3, deletes: N / 20 }, path);
  const ids = log.upserts.data[0];
  const statuses = log.upserts.data[1];
  const seen = new Set<number>();
  for (let r = 0; r < expectedUpserts; r++) {
    const i = Number(ids[r]);
    if (i >= N) assert.equal(statuses[r], 'new');
    else {
      assert.ok(updated(i), `row ${i} is not an update`);
      assert.equal(statuses[r], `changed ${i % 5}`);
    }
    seen.add(i);
  }
  assert.equal(seen.size, expectedUpserts, 'every change once');
  const gone = log.deletes.data[0];
  for (let r = 0; r < N / 20; r++) assert.ok(deleted(Number(gone[r])), `${String(gone[r])} was not deleted`);
  assert.equal(new Set(gone).size, N / 20);
}

test(
  'kill -9 during a large CAPTURE (reading and diffing, writing the log, right after it): no half-written log, and the next run loses nothing',
  LIMITS,
  async (t) => {
    // Each folder holds a 14 MB source and a 40 MB state.
    const base = tempDir('capture-kill');
    writeSource(base, 1);
    const first = capture(base);
    await first.said('captured');
    await first.finish();
    const [baseline] = logsOf(base);
    writeSource(base, 2);

    const scenarios: { name: string; killAt: (dir: string, child: Child) => Promise<void> }[] = [
      { name: 'while it reads the state and diffs', killAt: (_dir, child) => child.said('selected') },
      {
        name: 'while it writes the log',
        killAt: (dir) =>
          until(dir, (names) =>
            names.some((f) => f.startsWith(`.big_`) && f.includes('.tmp-') && statSync(join(dir, 'logs', f)).size > 0),
          ),
      },
      {
        name: 'as soon as the log is there',
        killAt: (dir) => until(dir, (names) => names.filter((f) => f.endsWith('.eds')).length > 1),
      },
    ];
    for (const { name, killAt } of scenarios) {
      const dir = tempDir('capture-kill');
      cpSync(base, dir, { recursive: true });
      const child = capture(dir);
      await killAt(dir, child);
      assert.equal(await child.kill(), 'SIGKILL', name);

      // Only whole logs are visible: every .eds reads to its trailer; temp files do not end in .eds.
      const afterKill = logsOf(dir);
      for (const f of afterKill.filter((f) => f !== baseline)) await checkLog(join(dir, 'logs', f));

      // The next run: it finds the killed run's log and a state matching it, or captures the same changes again.
      const next = capture(dir);
      await next.said('captured');
      await next.finish();
      const changes = logsOf(dir).filter((f) => f !== baseline);
      assert.ok(changes.length >= 1 && changes.length <= 2, `${name}: ${changes.join(', ')}`);
      for (const f of changes) await checkLog(join(dir, 'logs', f));
      if (changes.length === 2)
        assert.ok(afterKill.includes(changes[0]), 'a second log only when the killed run had written its own');
      const killed =
        afterKill.length > 1
          ? `its log was whole${changes.length === 1 ? ' and its state committed' : ', its state not'}`
          : 'it had written no log';
      t.diagnostic(
        `killed ${name}: ${killed}; ${child.output().includes('captured') ? 'CAPTURE had returned' : 'in CAPTURE'}`,
      );

      // And the state is the source's: one more run finds nothing.
      const again = capture(dir);
      await again.said('captured');
      await again.finish();
      assert.deepEqual(
        logsOf(dir).filter((f) => f !== baseline),
        changes,
        `${name}: no change after recovery`,
      );
    }
  },
);
