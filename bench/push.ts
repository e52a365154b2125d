import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { Dataset } from '../runtime/dataset/dataset';
import type { Column, Value } from '../runtime/dataset/types';
import { Session } from '../runtime/session';
import { seededRandom } from './measure';

/**
 * `npm run bench -- push`: PUSH INTO HTTP through `Session.run` against a loopback node:http receiver,
 * beside a hand-written undici Pool + JSON.stringify client sending the same bodies (byte for byte: the
 * receiver hashes what it gets and the bench checks both digests agree) with one call in flight, as
 * the push is ordered. Runs alternate, best of RUNS each; each line gives wall time and the pusher's
 * CPU time:
 * - 1,000,000 rows of 6 columns, WITH BATCH 100 and `[@concatjson({…})]`: rows/s (goal: >= 0.8x the
 *   hand-written client);
 * - 20,000 rows at BATCH 1 (one call per row): calls/s and the µs per call ours costs beyond it;
 * - 100,000 rows at BATCH 100 to a receiver that answers after 1 ms, as a remote API would: the push
 *   makes the next body while a call is in flight, the hand-written client after it.
 *
 * The receiver runs in a child process, not on the pusher's event loop (where its parsing and hashing
 * would run between the pusher's steps and be timed as ours) nor in a worker thread (which has its
 * own event loop, but whose CPU time process.cpuUsage() would count as the pusher's). A process of its
 * own is what a real receiver is, and `node --cpu-prof dist/bench/index.js push` profiles the pusher
 * and the receiver apart.
 */

const ROWS = 1_000_000;
const BATCH = 100;
const CALL_ROWS = 20_000;
const SLOW_ROWS = 100_000;
/** How long the slow receiver (path /slow) waits before it answers. */
const SLOW_MS = 1;
const RUNS = 5;

const COLUMNS: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'sku', type: { base: 'string' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'price', type: { base: 'double' } },
  { name: 'qty', type: { base: 'int' } },
  { name: 'updated_at', type: { base: 'string' } },
];
/** Names that JSON must escape, for @concatjson (which writes each bare field as a JSON value). */
const NAMES = ['Widget', 'Gadget "Pro"', 'Café crème', 'Bolt M8', 'Ünïcødé 日本', 'Hose 1/2\\', 'Lamp\tDesk', 'Chair'];
/**
 * Outside an operator a field is its text as is, so a BATCH 1 JSON payload quotes its string fields
 * and its rows hold nothing JSON would escape.
 */
const PLAIN_NAMES = ['Widget', 'Gadget Pro', 'Café crème', 'Bolt M8', 'Ünïcødé 日本', 'Hose 1/2', 'Lamp Desk', 'Chair'];

/** Written without spaces, so each row's text is exactly JSON.stringify of the row as an object. */
const BATCH_ROW =
  '{"id":{{id}},"sku":{{sku}},"name":{{name}},"price":{{price}},"qty":{{qty}},"updated_at":{{updated_at}}}';
const SINGLE_ROW =
  '{"id":{{id}},"sku":"{{sku}}","name":"{{name}}","price":{{price}},"qty":{{qty}},"updated_at":"{{updated_at}}"}';

function generateRows(count: number, names: readonly string[]): Value[][] {
  const random = seededRandom();
  const rows = new Array<Value[]>(count);
  for (let i = 0; i < count; i++) {
    const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
    const second = String(Math.floor(random() * 60)).padStart(2, '0');
    rows[i] = [
      i + 1,
      `SKU-${Math.floor(random() * 1e6)
        .toString(36)
        .toUpperCase()}`,
      `${names[i % names.length]} ${i % 977}`,
      Math.round(random() * 100000) / 100,
      1 + Math.floor(random() * 50),
      `2024-03-${day}T10:15:${second}`,
    ];
  }
  return rows;
}

/**
 * The same rows as a dataset (ours) and as objects (the reference's JSON.stringify input), sharing
 * their strings. The row arrays are dropped: both clients' garbage collections walk what stays.
 */
function generate(count: number, names: readonly string[]): { dataset: Dataset; objects: Record<string, Value>[] } {
  const rows = generateRows(count, names);
  const keys = COLUMNS.map((c) => c.name);
  return {
    dataset: Dataset.fromRows(COLUMNS, rows),
    objects: rows.map((r) => Object.fromEntries(keys.map((k, c) => [k, r[c]]))),
  };
}

// ----------------------------------------------------------------------------- the receiver (child)

interface Received {
  requests: number;
  bytes: number;
  /** SHA-1 of every body received since the last report, in order. */
  digest: string;
}

/**
 * Reads each body into a running hash and answers 200 with a small JSON body, at once or, on /slow,
 * after SLOW_MS; reports and resets on 'take'.
 */
function serve(): void {
  let requests = 0;
  let bytes = 0;
  let hash = createHash('sha1');
  const server = createServer((req, res) => {
    requests++;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    const answer = () =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 11 }).end('{"ok":true}');
    req.on('end', () => (req.url === '/slow' ? setTimeout(answer, SLOW_MS) : answer()));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', () => {
    const report: Received = { requests, bytes, digest: hash.digest('hex') };
    requests = 0;
    bytes = 0;
    hash = createHash('sha1');
    process.send!(report);
  });
  process.on('disconnect', () => process.exit(0));
}

class Receiver {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    const child = fork(__filename, ['--serve'], { stdio: 'inherit' });
    const { port } = await new Promise<{ port: number }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { port: number }));
      child.once('exit', (code) => reject(new Error(`the receiver exited (${code})`)));
    });
    return new Receiver(child, `http://127.0.0.1:${port}`);
  }

  /** What arrived since the last call. */
  take(): Promise<Received> {
    return new Promise((resolve) => {
      this.child.once('message', (m) => resolve(m as Received));
      this.child.send('take');
    });
  }

  stop(): void {
    this.child.disconnect();
  }
}

// ----------------------------------------------------------------------------- the two clients

/** The reference: what someone would write by hand with undici, awaiting each call before the next. */
async function handWritten(pool: Pool, objects: readonly object[], size: number, path = '/items'): Promise<number> {
  let calls = 0;
  for (let start = 0; start < objects.length; start += size) {
    const body = size === 1 ? JSON.stringify(objects[start]) : JSON.stringify(objects.slice(start, start + size));
    const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    calls++;
  }
  return calls;
}

/** Wall time, and the pusher's CPU time: on a shared machine the second moves less with the load. */
interface Timing {
  seconds: number;
  cpuSeconds: number;
}

async function timed(receiver: Receiver, run: () => Promise<unknown>): Promise<Timing & { received: Received }> {
  await receiver.take();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await run();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, received: await receiver.take() };
}

/** Alternates the two clients RUNS times; both must deliver the same bytes in the same number of calls. */
async function compare(
  receiver: Receiver,
  calls: number,
  ours: () => Promise<unknown>,
  reference: () => Promise<unknown>,
): Promise<{ ours: Timing; reference: Timing; bytes: number }> {
  let expected: Received | undefined;
  const check = (label: string, got: Received) => {
    expected ??= got;
    if (got.requests !== calls || got.digest !== expected.digest || got.bytes !== expected.bytes) {
      throw new Error(
        `${label} delivered ${got.requests} calls, ${got.bytes} bytes (${got.digest}); expected ${calls} calls, ${expected.bytes} bytes (${expected.digest})`,
      );
    }
  };
  const fastest = (a: Timing, b: Timing): Timing => ({
    seconds: Math.min(a.seconds, b.seconds),
    cpuSeconds: Math.min(a.cpuSeconds, b.cpuSeconds),
  });
  const none: Timing = { seconds: Infinity, cpuSeconds: Infinity };
  const best = { ours: none, reference: none, bytes: 0 };
  for (let i = 0; i < RUNS; i++) {
    const r = await timed(receiver, reference);
    check('the hand-written client', r.received);
    const o = await timed(receiver, ours);
    check('PUSH INTO HTTP', o.received);
    best.reference = fastest(best.reference, r);
    best.ours = fastest(best.ours, o);
    best.bytes = r.received.bytes;
  }
  return best;
}

// ----------------------------------------------------------------------------- report

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** One client's line: wall time and rate, then its CPU time and the rate that would give. */
function line(label: string, t: Timing, units: number, unit: string): string {
  const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;
  return `  ${label.padEnd(24)} ${ms(t.seconds)}  ${count(units / t.seconds).padStart(9)} ${unit}/s   CPU ${ms(t.cpuSeconds)}  ${count(units / t.cpuSeconds).padStart(9)} ${unit}/CPU-s`;
}

export async function runPushBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-push-'));
  const receiver = await Receiver.start();
  const session = new Session({ workspace: join(dir, '.sqlcdc'), cwd: dir });
  const pool = new Pool(receiver.url);
  try {
    await session.run(`%connection add bench ${receiver.url}`);
    const push = async (dataset: Dataset, statement: string, sent: number) => {
      session.setDataset(dataset);
      const results = await session.run(statement);
      const summary = results.flatMap((r) => (r.kind === 'message' ? [r.text] : [])).join(' ');
      if (!summary.includes(`${count(sent)} rows sent`)) throw new Error(`unexpected summary: ${summary}`);
    };

    console.log(
      `push: PUSH INTO HTTP to a loopback node:http receiver (child process), 1 call in flight, best of ${RUNS}`,
    );
    const all = generate(ROWS, NAMES);
    const batched = await compare(
      receiver,
      Math.ceil(ROWS / BATCH),
      () =>
        push(
          all.dataset,
          `PUSH INTO HTTP [bench] ON_UPSERT (POST /items) PAYLOAD ([@concatjson(${BATCH_ROW})]) WITH BATCH ${BATCH};`,
          ROWS,
        ),
      () => handWritten(pool, all.objects, BATCH),
    );
    const ratio = batched.reference.seconds / batched.ours.seconds;
    const cpuRatio = batched.reference.cpuSeconds / batched.ours.cpuSeconds;
    console.log(
      `${count(ROWS)} rows × ${COLUMNS.length} columns, BATCH ${BATCH} with @concatjson (${count(ROWS / BATCH)} calls, ${(batched.bytes / 1048576).toFixed(0)} MB)`,
    );
    console.log(line('PUSH INTO HTTP', batched.ours, ROWS, 'rows'));
    console.log(line('undici + JSON.stringify', batched.reference, ROWS, 'rows'));
    console.log(
      `  ratio ${ratio.toFixed(2)}x the hand-written rows/s (goal ≥ 0.8x): ${ratio >= 0.8 ? 'met' : 'MISSED'}; per CPU second ${cpuRatio.toFixed(2)}x`,
    );

    const few = generate(CALL_ROWS, PLAIN_NAMES);
    const single = await compare(
      receiver,
      CALL_ROWS,
      () => push(few.dataset, `PUSH INTO HTTP [bench] ON_UPSERT (POST /items) PAYLOAD (${SINGLE_ROW});`, CALL_ROWS),
      () => handWritten(pool, few.objects, 1),
    );
    const perCall = (t: Timing) => (t.seconds / CALL_ROWS) * 1e6;
    const perCallCpu = (t: Timing) => (t.cpuSeconds / CALL_ROWS) * 1e6;
    console.log(`${count(CALL_ROWS)} rows at BATCH 1 (one call per row)`);
    console.log(
      `${line('PUSH INTO HTTP', single.ours, CALL_ROWS, 'calls')}   ${perCall(single.ours).toFixed(1)} µs/call`,
    );
    console.log(
      `${line('undici + JSON.stringify', single.reference, CALL_ROWS, 'calls')}   ${perCall(single.reference).toFixed(1)} µs/call`,
    );
    console.log(
      `  overhead per call: ${(perCall(single.ours) - perCall(single.reference)).toFixed(1)} µs (${(perCallCpu(single.ours) - perCallCpu(single.reference)).toFixed(1)} µs of CPU);` +
        ` ${(single.reference.seconds / single.ours.seconds).toFixed(2)}x the hand-written calls/s`,
    );

    // The same calls pushed from a change log, as a job's writer does: the push then notes, beside
    // the log, the batches acknowledged so far (docs/push.md), which costs per call.
    const logged = await compare(
      receiver,
      CALL_ROWS,
      () =>
        push(
          few.dataset,
          `CAPTURE 'bench' WITH PATH 'logs';\nPUSH INTO HTTP [bench] ON_UPSERT (POST /items) PAYLOAD (${SINGLE_ROW});`,
          CALL_ROWS,
        ),
      () => handWritten(pool, few.objects, 1),
    );
    console.log(`${count(CALL_ROWS)} rows at BATCH 1 pushed from a change log (CAPTURE, then PUSH)`);
    console.log(
      `${line('CAPTURE + PUSH INTO HTTP', logged.ours, CALL_ROWS, 'calls')}   ${perCall(logged.ours).toFixed(1)} µs/call`,
    );
    console.log(
      `${line('undici + JSON.stringify', logged.reference, CALL_ROWS, 'calls')}   ${perCall(logged.reference).toFixed(1)} µs/call`,
    );
    console.log(
      `  overhead per call: ${(perCall(logged.ours) - perCall(logged.reference)).toFixed(1)} µs;` +
        ` ${(logged.reference.seconds / logged.ours.seconds).toFixed(2)}x the hand-written calls/s` +
        ` (goal: within 10% of the BATCH 1 line above: ${(single.reference.seconds / single.ours.seconds).toFixed(2)}x)`,
    );

    const slow = await compare(
      receiver,
      SLOW_ROWS / BATCH,
      () =>
        push(
          all.dataset.slice(0, SLOW_ROWS),
          `PUSH INTO HTTP [bench] ON_UPSERT (POST /slow) PAYLOAD ([@concatjson(${BATCH_ROW})]) WITH BATCH ${BATCH};`,
          SLOW_ROWS,
        ),
      () => handWritten(pool, all.objects.slice(0, SLOW_ROWS), BATCH, '/slow'),
    );
    console.log(`${count(SLOW_ROWS)} rows, BATCH ${BATCH}, to a receiver answering after ${SLOW_MS} ms (a remote API)`);
    console.log(line('PUSH INTO HTTP', slow.ours, SLOW_ROWS, 'rows'));
    console.log(line('undici + JSON.stringify', slow.reference, SLOW_ROWS, 'rows'));
    console.log(`  ratio ${(slow.reference.seconds / slow.ours.seconds).toFixed(2)}x the hand-written rows/s`);
  } finally {
    await pool.destroy();
    await session.close();
    receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  if (process.argv[2] === '--serve') serve();
  else
    runPushBench().catch((e) => {
      console.error(e);
      process.exitCode = 1;
    });
}
