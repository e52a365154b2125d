import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { PushProgress } from '../../runtime/targets/resume';
import { runCli } from '../helpers/cli';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { SQLCDC } from '../repl/harness';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const READER = "SELECT * FROM DRIVE 'src.csv';\nCAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id';\n";
const WRITER = `LOAD UPSERTS DELETES FROM 'orders';
PUSH INTO HTTP [api]
    ON_UPSERT (PUT /rows/{{id}}) PAYLOAD ({"v": "{{v}}"})
    ON_DELETE (DELETE /rows/{{id}});
`;

test('kill -9 of a job run in the middle of its PUSH INTO HTTP: the next run sends only the batches not acknowledged, then the next log; the target ends as the source', async () => {
  // The receiver: a table of the rows put and deleted. While `holding`, the call of that number is
  // left unanswered: the job is killed then, with calls before it made and answered.
  const table = new Map<string, string>();
  let holding: number | undefined;
  let calls = 0;
  const received: string[] = [];
  const server = await startHttpServer((req, res) => {
    calls++;
    received.push(`${req.method} ${req.url}`);
    if (calls === holding) return;
    const id = decodeURIComponent(req.url.split('/').pop()!);
    if (req.method === 'PUT') table.set(id, (JSON.parse(req.body) as { v: string }).v);
    else table.delete(id);
    res.writeHead(204).end();
  });
  servers.push(server);
  const { session, dir } = tempSession({ 'r.sql': READER, 'w.sql': WRITER }, 'push-kill');
  await session.run(`%connection add api ${server.url}`);
  await session.close();
  const cli = async (args: string[]) => {
    const r = await runCli(dir, [...args, '--workspace', 'ws']);
    assert.equal(r.code, 0, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  await cli(['job', 'create', 'sync', '--reader', 'r.sql', '--writer', 'w.sql']);
  const source = (rows: [number, string][]) =>
    writeFileSync(join(dir, 'src.csv'), `id,v\n${rows.map((r) => r.join(',')).join('\n')}\n`);

  source([
    [1, 'a'],
    [2, 'b'],
    [3, 'c'],
    [4, 'd'],
    [5, 'e'],
  ]);
  holding = 3;
  const child = spawn(process.execPath, [SQLCDC, 'job', 'run', 'sync', '--workspace', 'ws'], { cwd: dir });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await server.received(3);
  // Killed once the two answered batches are noted beside the log (at the latest 100 ms after the
  // answer, docs/push.md), while the third call waits for its answer.
  const logs = join(dir, 'ws', 'changelogs', 'sync');
  const noted = () =>
    readdirSync(logs)
      .filter((n) => n.endsWith('.progress.json') && !n.startsWith('.'))
      .some((n) =>
        Object.values((JSON.parse(readFileSync(join(logs, n), 'utf8')) as PushProgress).done).some(
          (s) => s.upsert === 2,
        ),
      );
  for (let i = 0; i < 2000 && !noted(); i++) await new Promise((go) => setTimeout(go, 5));
  assert.ok(noted(), 'the answered batches are noted');
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  assert.equal(table.size, 2, 'two rows were put before the kill');
  holding = undefined;

  // The source moves on meanwhile: 2 changes, 5 goes, 6 comes.
  source([
    [1, 'a'],
    [2, 'B'],
    [3, 'c'],
    [4, 'd'],
    [6, 'f'],
  ]);
  // This run captures the second change log, and plays the first one again: its push was never
  // finished, so LOAD's watermark did not move past it. The batches the receiver acknowledged before
  // the kill are noted beside the log (docs/push.md): only the others are sent.
  const killedAt = received.length;
  const second = await cli(['job', 'run', 'sync']);
  assert.match(second.stderr, /resuming at batch 3 of 5/);
  assert.match(second.stderr, /PUSH INTO HTTP: 3 calls made, 3 rows sent/);
  // Calls 1 and 2 were answered before the kill; call 3 was received, never answered: sent again.
  assert.deepEqual(received.slice(killedAt), ['PUT /rows/3', 'PUT /rows/4', 'PUT /rows/5']);
  // The next run plays the second log: the target is the source.
  const third = await cli(['job', 'run', 'sync']);
  assert.match(third.stderr, /PUSH INTO HTTP: 3 calls made, 3 rows sent/);
  assert.deepEqual(Object.fromEntries([...table].sort()), { 1: 'a', 2: 'B', 3: 'c', 4: 'd', 6: 'f' });
  const fourth = await cli(['job', 'run', 'sync']);
  assert.match(fourth.stderr, /nothing to load/);
  assert.equal(calls, 3 + 3 + 3, "the killed run's calls, the first log's calls not answered, the second log");
});
