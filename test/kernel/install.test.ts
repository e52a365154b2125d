import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertJupyter, PYTHON, ROOT, skipWithoutJupyter, withTempDir } from './jupyter';

function install(args: string[], env: Record<string, string | undefined> = {}) {
  const base = { ...process.env };
  delete base.npm_lifecycle_event;
  delete base.JUPYTER_DATA_DIR;
  return spawnSync(process.execPath, [join(ROOT, 'install.js'), ...args], {
    encoding: 'utf8',
    env: { ...base, ...env },
  });
}

function readSpec(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'kernel.json'), 'utf8')) as Record<string, unknown>;
}

test('--prefix writes kernel.json with absolute paths, message interrupts and both logos', async () => {
  await withTempDir('install', async (prefix) => {
    const r = install(['--prefix', prefix]);
    assert.equal(r.status, 0, r.stderr);
    const dir = join(prefix, 'share', 'jupyter', 'kernels', 'sqlcdc');
    assert.deepEqual(readSpec(dir), {
      argv: [process.execPath, join(ROOT, 'dist', 'kernel', 'main.js'), '{connection_file}'],
      display_name: 'SQL CDC',
      language: 'sql',
      interrupt_mode: 'message',
      metadata: { debugger: false },
    });
    for (const [file, size] of [
      ['logo-32x32.png', 32],
      ['logo-64x64.png', 64],
    ] as const) {
      const png = readFileSync(join(dir, file));
      assert.equal(png.subarray(1, 4).toString(), 'PNG');
      assert.equal(png.readUInt32BE(16), size);
      assert.equal(png.readUInt32BE(20), size);
    }
  });
});

test('without options it installs for the user, under JUPYTER_DATA_DIR; --uninstall removes it', async () => {
  await withTempDir('install', async (data) => {
    assert.equal(install([], { JUPYTER_DATA_DIR: data }).status, 0);
    const dir = join(data, 'kernels', 'sqlcdc');
    assert.equal(readSpec(dir).display_name, 'SQL CDC');
    const r = install(['--uninstall'], { JUPYTER_DATA_DIR: data });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(existsSync(dir), false);
    assert.match(install(['--uninstall'], { JUPYTER_DATA_DIR: data }).stdout, /No SQL CDC kernel/);
  });
});

test('--sys-prefix uses the prefix of the Python that runs jupyter', async () => {
  await withTempDir('install', async (tmp) => {
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    const prefix = join(tmp, 'venv');
    const python = join(bin, 'python-of-jupyter');
    writeFileSync(python, `#!/bin/sh\necho ${prefix}\n`);
    writeFileSync(join(bin, 'jupyter'), `#!${python}\n`);
    chmodSync(python, 0o755);
    chmodSync(join(bin, 'jupyter'), 0o755);
    const r = install(['--sys-prefix'], { PATH: `${bin}:${process.env.PATH}` });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(prefix, 'share', 'jupyter', 'kernels', 'sqlcdc', 'kernel.json')));
  });
});

test('a failure exits 1 when run by hand, but only warns when npm runs it', async () => {
  const byHand = install(['--bogus']);
  assert.equal(byHand.status, 1);
  assert.match(byHand.stderr, /unknown option --bogus/);
  await withTempDir('install', async (tmp) => {
    const file = join(tmp, 'not-a-folder');
    writeFileSync(file, '');
    const viaNpm = install(['--prefix', file], { npm_lifecycle_event: 'postinstall' });
    assert.equal(viaNpm.status, 0);
    assert.match(viaNpm.stderr, /the Jupyter kernel was not registered/);
  });
});

const MODULES = ['jupyter_client'];

test(
  'jupyter_client finds the installed kernelspec through JUPYTER_PATH',
  { skip: skipWithoutJupyter(MODULES) },
  async () => {
    assertJupyter(MODULES);
    await withTempDir('install', async (prefix) => {
      assert.equal(install(['--prefix', prefix]).status, 0);
      const r = spawnSync(
        PYTHON,
        [
          '-c',
          'import json; from jupyter_client.kernelspec import KernelSpecManager as M; s = M().get_kernel_spec("sqlcdc"); print(json.dumps([s.display_name, s.language, s.interrupt_mode, s.argv]))',
        ],
        { encoding: 'utf8', env: { ...process.env, JUPYTER_PATH: join(prefix, 'share', 'jupyter') } },
      );
      assert.equal(r.status, 0, r.stderr);
      const [name, language, interrupt, argv] = JSON.parse(r.stdout) as [string, string, string, string[]];
      assert.deepEqual([name, language, interrupt], ['SQL CDC', 'sql', 'message']);
      assert.equal(argv[1], join(ROOT, 'dist', 'kernel', 'main.js'));
    });
  },
);

const KERNELSPEC_CMD = '/usr/bin/jupyter-kernelspec';

test(
  '`jupyter kernelspec list` shows the installed kernel',
  {
    skip:
      !existsSync(KERNELSPEC_CMD) && !process.env.CI
        ? `needs ${KERNELSPEC_CMD}; install it with: apt-get install -y jupyter-client`
        : false,
  },
  async () => {
    assert.ok(existsSync(KERNELSPEC_CMD), `${KERNELSPEC_CMD} is missing: apt-get install -y jupyter-client`);
    await withTempDir('install', async (prefix) => {
      assert.equal(install(['--prefix', prefix]).status, 0);
      const r = spawnSync('/usr/bin/jupyter', ['kernelspec', 'list'], {
        encoding: 'utf8',
        env: { ...process.env, JUPYTER_PATH: join(prefix, 'share', 'jupyter') },
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(
        r.stdout,
        new RegExp(`^\\s*sqlcdc\\s+${join(prefix, 'share', 'jupyter', 'kernels', 'sqlcdc')}$`, 'm'),
      );
    });
  },
);
