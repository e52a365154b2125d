import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Session } from '../../runtime/session';
import type { Result } from '../../runtime/results';
import { tempDir } from '../helpers/session';

/** A project folder holding `.sqlcdc`, with a subfolder two levels down to start sessions in. */
function project(): { root: string; sub: string } {
  const root = tempDir('ws-find');
  mkdirSync(join(root, '.sqlcdc'));
  const sub = join(root, 'pipelines', 'daily');
  mkdirSync(sub, { recursive: true });
  return { root, sub };
}

/** Runs `fn` with $SQLCDC_HOME set to `home` (or unset), as a user's shell would have it. */
async function withHome<T>(home: string | undefined, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.SQLCDC_HOME;
  if (home === undefined) delete process.env.SQLCDC_HOME;
  else process.env.SQLCDC_HOME = home;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.SQLCDC_HOME;
    else process.env.SQLCDC_HOME = saved;
  }
}

/** The workspace a session reports with %workspace. */
async function workspaceOf(session: Session): Promise<string> {
  const [r] = (await session.run('%workspace')) as Extract<Result, { kind: 'message' }>[];
  return /^workspace: (.*)$/m.exec(r.text)![1];
}

/** A `.sqlcdc` folder above `dir` would be found first: the tests that expect none say so. */
function workspaceAbove(dir: string): string | undefined {
  for (let at = dirname(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.sqlcdc'))) return join(at, '.sqlcdc');
    if (dirname(at) === at) return undefined;
  }
}

test('a session started in a subfolder uses the .sqlcdc of a parent folder, and its connections', async () => {
  const { root, sub } = project();
  await withHome(undefined, async () => {
    await new Session({ cwd: root }).run('%connection add shop http://127.0.0.1:9/api');
    const session = new Session({ cwd: sub });
    assert.equal(await workspaceOf(session), join(root, '.sqlcdc'));
    const [list] = await session.run('%connection list');
    assert.equal(list.kind, 'table');
    assert.deepEqual(
      list.dataset.rows().map((r) => r[0]),
      ['shop'],
    );
    assert.ok(!existsSync(join(sub, '.sqlcdc')), 'no new workspace in the subfolder');
  });
});

test('the nearest .sqlcdc wins over one further up', async () => {
  const { root, sub } = project();
  mkdirSync(join(root, 'pipelines', '.sqlcdc'));
  await withHome(undefined, async () => {
    assert.equal(await workspaceOf(new Session({ cwd: sub })), join(root, 'pipelines', '.sqlcdc'));
  });
});

test('a file named .sqlcdc is not a workspace', async () => {
  const { root, sub } = project();
  writeFileSync(join(root, 'pipelines', '.sqlcdc'), 'not a folder');
  await withHome(undefined, async () => {
    assert.equal(await workspaceOf(new Session({ cwd: sub })), join(root, '.sqlcdc'));
  });
});

test('SQLCDC_HOME wins over a .sqlcdc folder above', async () => {
  const { sub } = project();
  const home = join(tempDir('ws-home'), 'home');
  await withHome(home, async () => {
    assert.equal(await workspaceOf(new Session({ cwd: sub })), home);
    assert.ok(existsSync(home), 'created on first use');
  });
});

test('the workspace option wins over SQLCDC_HOME and a .sqlcdc folder above; relative to the working directory', async () => {
  const { sub } = project();
  await withHome(join(tempDir('ws-home'), 'home'), async () => {
    assert.equal(await workspaceOf(new Session({ cwd: sub, workspace: 'mine' })), join(sub, 'mine'));
  });
});

test('with no workspace anywhere, a new ./.sqlcdc is created in the working directory', async () => {
  const dir = join(tempDir('ws-none'), 'work');
  mkdirSync(dir);
  assert.equal(workspaceAbove(dir), undefined, 'a stray .sqlcdc above the temp folder would be found first; remove it');
  await withHome(undefined, async () => {
    assert.equal(await workspaceOf(new Session({ cwd: dir })), join(dir, '.sqlcdc'));
    assert.ok(existsSync(join(dir, '.sqlcdc')));
  });
});

test("two sessions on one workspace (two kernels) see each other's connections, and neither drops the other's", async () => {
  const dir = tempDir('ws-two');
  const open = () => new Session({ workspace: join(dir, 'ws'), cwd: dir });
  const [a, b] = [open(), open()];
  const names = async (s: Session) => {
    const [list] = (await s.run('%connection list')).filter((r) => r.kind === 'table');
    return list.dataset.rows().map((row) => String(row[0]));
  };
  try {
    await a.run('%connection add one http://127.0.0.1:9/one');
    assert.deepEqual(await names(b), ['one']);
    await a.run('%connection add two http://127.0.0.1:9/two --bearer t0ken');
    assert.deepEqual(await names(b), ['one', 'two'], 'a connection the other session added is seen at once');
    await b.run('%connection add three http://127.0.0.1:9/three');
    await a.run('%connection remove one');
    assert.deepEqual(await names(b), ['two', 'three']);
    assert.deepEqual(await names(open()), ['two', 'three'], "the workspace kept both sessions' changes");
  } finally {
    await a.close();
    await b.close();
  }
});
