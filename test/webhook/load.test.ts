import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readChangeLog } from '../../runtime/changelog/read';
import { runCli as sqlcdc } from '../helpers/cli';
import { call, startServe, type RunAnswer, type Serve } from '../helpers/serve';
import { tempDir } from '../helpers/session';

const LIMITS = { timeout: 600_000 };
const serves: Serve[] = [];
after(async () => {
  for (const s of serves) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
});

async function webhookJob(writer = "PRINT 'stored';\n"): Promise<{ dir: string; guid: string }> {
  const dir = tempDir('webhook-load');
  writeFileSync(join(dir, 'w.sql'), writer);
  const r = await sqlcdc(dir, ['job', 'create', 'load', '--writer', 'w.sql', '--webhook', '--workspace', 'ws']);
  assert.equal(r.code, 0, r.stderr);
  return { dir, guid: r.stdout.trim() };
}

async function serve(dir: string): Promise<Serve> {
  const s = await startServe(dir, ['--workspace', 'ws', '--no-auth']);
  serves.push(s);
  return s;
}

interface Sent {
  body: { client: number; seq: number; tag: string };
  changeLog: string;
}

/** Each payload is unique (client, sequence, random tag), so a log holding another call's rows is caught. */
const payload = (client: number, seq: number) => ({ client, seq, tag: randomBytes(8).toString('hex') });

/** Reads every log a 2xx named and checks it holds exactly its call's row; no two calls share a log. */
async function checkLogs(sent: Sent[]): Promise<void> {
  assert.equal(new Set(sent.map((s) => s.changeLog)).size, sent.length, 'two calls named the same change log');
  for (const s of sent) {
    const log = await readChangeLog(s.changeLog);
    assert.deepEqual(log.upserts.rows(), [[s.body.client, s.body.seq, s.body.tag]], s.changeLog);
    assert.equal(log.deletes.rowCount, 0);
  }
}

/**
 * After a kill: every call answered 2xx has its complete log, every log in the store reads whole (a
 * killed write leaves only a dot-named temp file), and a restarted listener takes calls again on the
 * same store without reusing a name.
 */
async function checkAfterKill(dir: string, guid: string, sent: Sent[]): Promise<void> {
  await checkLogs(sent);
  const again = await serve(dir);
  const body = payload(99_999, 0);
  const r = await call(again.url, { query: { guid, startwriter: '0' }, body: JSON.stringify(body) });
  assert.equal(r.status, 202, r.text);
  await checkLogs([...sent, { body, changeLog: (r.json as RunAnswer).changeLog }]);
  const folder = join(dir, 'ws', 'changelogs', 'load');
  for (const f of readdirSync(folder)) {
    if (f.endsWith('.eds')) await readChangeLog(join(folder, f));
    else assert.match(f, /^\.load_\d+\.eds\.tmp-[0-9a-f]*\.\d*\.\d+\.\d*-[0-9a-f]+$/);
  }
}

test(
  '10,000 posts from 100 concurrent clients: every 2xx has its own complete change log, no payload mixed',
  LIMITS,
  async () => {
    const { dir, guid } = await webhookJob();
    const s = await serve(dir);
    const agent = new Agent({ keepAlive: true, maxSockets: 100 });
    const sent: Sent[] = [];
    const CLIENTS = 100;
    const PER_CLIENT = 100;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let seq = 0; seq < PER_CLIENT; seq++) {
          const body = payload(client, seq);
          const r = await call(s.url, {
            agent,
            query: { guid, startwriter: seq % 2 === 0 ? '0' : '1' },
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          assert.equal(r.status, seq % 2 === 0 ? 202 : 200, r.text);
          sent.push({ body, changeLog: (r.json as RunAnswer).changeLog });
        }
      }),
    );
    agent.destroy();
    assert.equal(sent.length, CLIENTS * PER_CLIENT);
    await checkLogs(sent);
    assert.equal(
      readdirSync(join(dir, 'ws', 'changelogs', 'load')).filter((f) => f.endsWith('.eds')).length,
      sent.length,
    );
  },
);

test(
  'kill -9 of sqlcdc serve under load, then a restart: every call answered 2xx has its complete log',
  LIMITS,
  async () => {
    const { dir, guid } = await webhookJob();
    const s = await serve(dir);
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const sent: Sent[] = [];
    let killed = false;
    const KILL_AFTER = 1000;
    await Promise.all(
      Array.from({ length: 50 }, async (_, client) => {
        for (let seq = 0; !killed || seq === 0; seq++) {
          const body = payload(client, seq);
          try {
            const r = await call(s.url, { agent, query: { guid, startwriter: '0' }, body: JSON.stringify(body) });
            assert.equal(r.status, 202, r.text);
            sent.push({ body, changeLog: (r.json as RunAnswer).changeLog });
          } catch (e) {
            // Calls cut off by the kill get no answer: they promised nothing.
            if (!killed) throw e;
            return;
          }
          if (sent.length >= KILL_AFTER && !killed) {
            killed = true;
            s.child.kill('SIGKILL');
          }
        }
      }),
    );
    agent.destroy();
    assert.ok(killed);
    await checkAfterKill(dir, guid, sent);
  },
);

test(
  'kill -9 during bursts of 200 calls at once (their logs flushed in shared batches): every 2xx has its complete log',
  LIMITS,
  async () => {
    const { dir, guid } = await webhookJob();
    const s = await serve(dir);
    const BURST = 200;
    const agent = new Agent({ keepAlive: true, maxSockets: BURST });
    const sent: Sent[] = [];
    let killed = false;
    for (let round = 0; !killed; round++) {
      // Every call of a round is in flight at once; the listener is killed as the first answer of the
      // third round comes back, while the rest of that round's logs are being written and flushed.
      await Promise.all(
        Array.from({ length: BURST }, async (_, client) => {
          const body = payload(client, round);
          try {
            const r = await call(s.url, { agent, query: { guid, startwriter: '0' }, body: JSON.stringify(body) });
            assert.equal(r.status, 202, r.text);
            sent.push({ body, changeLog: (r.json as RunAnswer).changeLog });
          } catch (e) {
            if (!killed) throw e;
            return;
          }
          if (round === 2 && !killed) {
            killed = true;
            s.child.kill('SIGKILL');
          }
        }),
      );
    }
    agent.destroy();
    assert.ok(sent.length > 2 * BURST, 'the first two rounds were answered in full');
    await checkAfterKill(dir, guid, sent);
  },
);

/**
 * Calls to one job on two listeners of one workspace at once, each answered 202; checks each log, and
 * that the job's run records are those of the logs the answers named, by execution id.
 */
async function callBoth(dir: string, guid: string): Promise<void> {
  const both = [await serve(dir), await serve(dir)];
  const agent = new Agent({ keepAlive: true, maxSockets: 40 });
  const sent: Sent[] = [];
  // Both listeners number logs from the clock: calls to both in the same millisecond meet on one name.
  await Promise.all(
    Array.from({ length: 40 }, async (_, client) => {
      for (let seq = 0; seq < 50; seq++) {
        const body = payload(client, seq);
        const r = await call(both[(client + seq) % 2].url, {
          agent,
          query: { guid, startwriter: '0' },
          body: JSON.stringify(body),
        });
        assert.equal(r.status, 202, r.text);
        const answer = r.json as RunAnswer;
        assert.equal(/_(\d+)\.eds$/.exec(answer.changeLog)![1], answer.executionId, r.text);
        sent.push({ body, changeLog: answer.changeLog });
      }
    }),
  );
  agent.destroy();
  await checkLogs(sent);
  const runs = JSON.parse(
    (await sqlcdc(dir, ['job', 'runs', 'load', '--output', 'json', '--workspace', 'ws'])).stdout,
  ) as { id: string }[];
  assert.deepEqual(runs.map((r) => r.id).sort(), sent.map((s) => /_(\d+)\.eds$/.exec(s.changeLog)![1]).sort());
}

test(
  'two sqlcdc serve on one workspace, calls to one job on both at once: every call answered 2xx, each its own log',
  LIMITS,
  async () => {
    const { dir, guid } = await webhookJob();
    await callBoth(dir, guid);
  },
);

test(
  'two sqlcdc serve on one workspace, a job whose writer CAPTUREs (naming its own log): every call answered 2xx, each its own log',
  LIMITS,
  async () => {
    const { dir, guid } = await webhookJob("CAPTURE 'orders';\n");
    await callBoth(dir, guid);
  },
);

test(
  'two sqlcdc serve on one workspace taking keyed calls at once, long enough to trim their idempotency answers: none is lost',
  LIMITS,
  async () => {
    const { dir, guid } = await webhookJob();
    const both = [await serve(dir), await serve(dir)];
    const agent = new Agent({ keepAlive: true, maxSockets: 40 });
    // Each listener files more answers than it keeps between two looks for expired ones (256); each
    // client calls one of them, so that calls to one go on while the other looks.
    const CLIENTS = 40;
    const PER_CLIENT = 20;
    const keyed = (client: number, seq: number, listener: Serve) =>
      call(listener.url, {
        agent,
        query: { guid, startwriter: '0' },
        headers: { 'idempotency-key': `k-${client}-${seq}` },
        body: JSON.stringify({ client, seq }),
      });
    const first = new Map<string, string>();
    assert.equal((await keyed(-1, 0, both[0])).status, 202);
    // What a day of heavy keyed traffic leaves once the day is over: 200,000 lines whose answers
    // expired, in the file the answers go to. Dropping them takes the next look a while, and the
    // other listener goes on appending meanwhile.
    const webhook = join(dir, 'ws', 'webhook');
    const files = readdirSync(webhook, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl'));
    assert.equal(files.length, 1, files.join());
    const dayAgo = Date.now() - 25 * 60 * 60 * 1000;
    const line = (i: number) =>
      `${JSON.stringify({ key: `${guid}\u0000old-${i}`, at: dayAgo, answer: { status: 202, body: { executionId: String(i), job: 'load', changeLog: 'old.eds', rows: 1 } } })}\n`;
    appendFileSync(join(webhook, files[0]), Array.from({ length: 200_000 }, (_, i) => line(i)).join(''));
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let seq = 0; seq < PER_CLIENT; seq++) {
          const r = await keyed(client, seq, both[client % 2]);
          assert.equal(r.status, 202, r.text);
          assert.equal(r.headers['idempotent-replayed'], undefined, r.text);
          first.set(`k-${client}-${seq}`, (r.json as RunAnswer).changeLog);
        }
      }),
    );
    for (const s of both) await s.stop();
    // A listener started afterwards knows every answer either gave: each key sent again is answered from the store.
    const again = await serve(dir);
    const forgotten: string[] = [];
    for (let client = 0; client < CLIENTS; client++) {
      const replies = await Promise.all(Array.from({ length: PER_CLIENT }, (_, seq) => keyed(client, seq, again)));
      replies.forEach((r, seq) => {
        assert.equal(r.status, 202, r.text);
        if (r.headers['idempotent-replayed'] !== 'true') forgotten.push(`k-${client}-${seq}`);
        else assert.equal((r.json as RunAnswer).changeLog, first.get(`k-${client}-${seq}`));
      });
    }
    agent.destroy();
    assert.deepEqual(forgotten, []);
  },
);
