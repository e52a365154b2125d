import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { SQLCDC } from '../repl/harness';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const strace = spawnSync('strace', ['-f', '-e', 'trace=fsync', 'true']).status === 0;

/** Runs the CLI under strace, recording its removals, renames, opens and flushes: the trace's lines. */
async function traced(dir: string, args: string[]): Promise<string[]> {
  const trace = join(dir, `trace-${args[0]}.txt`);
  const child = spawn(
    'strace',
    [
      '-f',
      '-qq',
      '-o',
      trace,
      '-e',
      'trace=unlink,unlinkat,rename,renameat,renameat2,openat,fsync',
      process.execPath,
      SQLCDC,
      ...args,
      '--workspace',
      'ws',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  assert.equal(code, 0, stderr);
  return readFileSync(trace, 'utf8').split('\n');
}

/**
 * Whether, after the first line matching `change` (a removal or rename that succeeded), the same
 * thread opens `folder` and flushes it: what makes that change survive a power cut.
 */
function folderSyncedAfter(lines: string[], change: RegExp, folder: string): boolean {
  const at = lines.findIndex((l) => change.test(l) && / = 0$/.test(l));
  assert.ok(at >= 0, `no ${change} in the trace`);
  const thread = lines[at].split(' ')[0];
  const opened = new Set<string>();
  for (const line of lines.slice(at + 1)) {
    if (line.split(' ')[0] !== thread) continue;
    const open = new RegExp(`openat\\(AT_FDCWD, "${folder}", O_RDONLY[^)]*\\) = (\\d+)$`).exec(line);
    if (open) opened.add(open[1]);
    const sync = /fsync\((\d+)\) += 0$/.exec(line);
    if (sync && opened.has(sync[1])) return true;
  }
  return false;
}

test(
  'DISCARD_ON_SUCCESS removes the log durably: its folder is flushed after the removal',
  { skip: !strace && 'no strace' },
  async () => {
    const server = await startHttpServer((_req, res) => {
      res.writeHead(200).end('{}');
    });
    servers.push(server);
    const { session, dir } = tempSession(
      {
        'src.csv': 'id\n1\n2\n',
        'push.sql': `SELECT * FROM DRIVE 'src.csv';
CAPTURE 'items' ON KEYS 'id' WITH PATH 'logs';
PUSH INTO HTTP [api] ON_UPSERT (POST /items) PAYLOAD ({"id": {{id}}}) WITH DISCARD_ON_SUCCESS;
`,
      },
      'folder-sync',
    );
    await session.run(`%connection add api ${server.url}`);
    await session.close();
    const lines = await traced(dir, ['run', 'push.sql']);
    assert.equal(server.requests.length, 2);
    const logs = join(dir, 'logs');
    assert.ok(folderSyncedAfter(lines, new RegExp(`unlink(at)?\\((AT_FDCWD, )?"${logs}/items_\\d+\\.eds"`), logs));
  },
);

test(
  'workspace rotate-key puts the new key in place durably: the workspace folder is flushed after its rename',
  { skip: !strace && 'no strace' },
  async () => {
    const { session, dir } = tempSession({}, 'folder-sync');
    await session.run('%var set --encrypted token abc');
    await session.close();
    const ws = join(dir, 'ws');
    assert.ok(existsSync(join(ws, 'secret.key')));
    const lines = await traced(dir, ['workspace', 'rotate-key']);
    assert.ok(
      folderSyncedAfter(lines, new RegExp(`rename\\w*\\(.*"${ws}/secret\\.key\\.next", .*"${ws}/secret\\.key"`), ws),
    );
  },
);
