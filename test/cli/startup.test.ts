import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli as sqlcdc } from '../helpers/cli';
import { startServe } from '../helpers/serve';
import { listed, listingTo } from '../helpers/loaded-modules';
import { tempDir } from '../helpers/temp';

/**
 * What a CLI command loads, which is most of its start-up (docs/cli.md, "Speed"; scripts and the test
 * suite call the CLI by the hundred). Read from the child itself: a preloaded module lists every module
 * it loaded when it exits.
 */
const LIMITS = { timeout: 120_000 };

/** The modules `sqlcdc ARGS` loaded; asserts it succeeded. */
async function modulesLoadedBy(dir: string, args: string[], input?: string): Promise<string[]> {
  const list = join(dir, 'loaded.txt');
  const r = await sqlcdc(dir, [...args, '--workspace', 'ws'], { input, env: listingTo(list) });
  assert.equal(r.code, 0, `sqlcdc ${args.join(' ')}: ${r.stderr}`);
  return listed(list);
}

/** The interpreter: the session, the statement parser (and chevrotain), the commands, the magics, the functions. */
const INTERPRETER = /^runtime\/(session\.js|script\/|commands\/|magics\/|functions\/registry\.js)|chevrotain/;

test(
  'the job, webhook key, change log and workspace commands that run no script load no part of the interpreter',
  LIMITS,
  async () => {
    const dir = tempDir('cli-startup');
    writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
    // Set-up: a job to show, trigger and delete (creating it from a script parses the script).
    for (const name of ['a', 'b'])
      assert.equal((await sqlcdc(dir, ['job', 'create', name, '--writer', 'w.sql', '--workspace', 'ws'])).code, 0);
    const commands: { args: string[]; input?: string }[] = [
      { args: ['job', 'list'] },
      { args: ['job', 'list', '--output', 'json'] },
      { args: ['job', 'show', 'a'] },
      { args: ['job', 'trigger', 'a', '--on', 'success', '--run', 'b'] },
      {
        args: ['job', 'update', 'a', '--webhook', '--signing-secret', '-'],
        input: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n',
      },
      { args: ['job', 'runs', 'a'] },
      { args: ['job', 'delete', 'b'] },
      { args: ['webhook', 'key', 'new', '--name', 'ci'] },
      { args: ['webhook', 'key', 'list'] },
      { args: ['changelog', 'list', '.'] },
      { args: ['workspace', 'rotate-key'] },
    ];
    for (const { args, input } of commands) {
      const loaded = (await modulesLoadedBy(dir, args, input)).filter((f) => INTERPRETER.test(f));
      assert.deepEqual(loaded, [], `sqlcdc ${args.join(' ')} loaded the interpreter`);
    }
  },
);

test('sqlcdc job create with a script loads the statement parser, not the interpreter', LIMITS, async () => {
  const dir = tempDir('cli-startup');
  writeFileSync(join(dir, 'w.sql'), "PRINT 'w';\n");
  const loaded = await modulesLoadedBy(dir, ['job', 'create', 'a', '--reader', 'w.sql', '--writer', 'w.sql']);
  assert.ok(loaded.includes('runtime/script/parser.js'), 'the script was parsed');
  const parser = /^runtime\/(script\/|commands\/checks\.js)|chevrotain/;
  assert.deepEqual(
    loaded.filter((f) => INTERPRETER.test(f) && !parser.test(f)),
    [],
  );
});

test('sqlcdc run of a script loads the commands of its statements, not every command', LIMITS, async () => {
  const dir = tempDir('cli-startup');
  writeFileSync(join(dir, 'print.sql'), "PRINT 'hi';\n");
  const commands = (await modulesLoadedBy(dir, ['run', 'print.sql'])).filter((f) => f.startsWith('runtime/commands/'));
  assert.deepEqual(commands.sort(), [
    'runtime/commands/checks.js',
    'runtime/commands/command.js',
    'runtime/commands/print.js',
    'runtime/commands/table.js',
  ]);
});

test(
  'a session loads the code of the magics that pull much (jobs, change logs, profiling) on their first use',
  LIMITS,
  async () => {
    const dir = tempDir('cli-startup');
    writeFileSync(join(dir, 'print.sql'), "PRINT 'hi';\n");
    const loaded = await modulesLoadedBy(dir, ['run', 'print.sql']);
    assert.ok(loaded.includes('runtime/magics/index.js'), 'the session knows its magics');
    assert.deepEqual(
      loaded.filter((f) => /^runtime\/(magics\/(job|changelog|describe)\.js|dataset\/profile\.js)$/.test(f)),
      [],
    );
  },
);

test('a script loads the families of the functions it calls, not the whole function library', LIMITS, async () => {
  const dir = tempDir('cli-startup');
  writeFileSync(join(dir, 'print.sql'), "PRINT 'hi';\n");
  writeFileSync(join(dir, 'upper.sql'), "PRINT '#toupper(hi)';\n");
  const families = async (script: string) =>
    (await modulesLoadedBy(dir, ['run', script])).filter((f) =>
      /^runtime\/functions\/(data|string|date|other|operators)\.js$/.test(f),
    );
  assert.deepEqual(await families('print.sql'), []);
  assert.deepEqual(await families('upper.sql'), ['runtime/functions/string.js']);
});

test(
  'sqlcdc run loads no part that only other front ends use: completion, the webhook listener, change log reading',
  LIMITS,
  async () => {
    const dir = tempDir('cli-startup');
    writeFileSync(join(dir, 'print.sql'), "PRINT 'hi';\n");
    const loaded = await modulesLoadedBy(dir, ['run', 'print.sql']);
    assert.deepEqual(
      loaded.filter((f) =>
        /^runtime\/(services\/|webhook\/(ingest|server)\.js|jobs\/(replay|play)\.js|changelog\/(read|inspect)\.js|workspace\/rotate-key\.js)/.test(
          f,
        ),
      ),
      [],
    );
  },
);

test(
  'sqlcdc serve listens without the session: no commands, magics or function families until a call',
  LIMITS,
  async () => {
    const dir = tempDir('cli-startup');
    const list = join(dir, 'loaded.txt');
    const serve = await startServe(dir, ['--no-auth', '--workspace', 'ws'], listingTo(list));
    assert.equal(await serve.stop(), 0);
    const loaded = listed(list);
    assert.ok(loaded.includes('runtime/webhook/ingest.js'));
    assert.deepEqual(
      loaded.filter((f) =>
        /^runtime\/(session\.js|script\/parser\.js|commands\/|magics\/|functions\/(evaluate|data|string|date|other|operators)\.js)|chevrotain/.test(
          f,
        ),
      ),
      [],
    );
  },
);

test('sqlcdc changelog list loads runtime/support alone: not the jobs, nor the access keys', LIMITS, async () => {
  const dir = tempDir('cli-startup');
  const loaded = (await modulesLoadedBy(dir, ['changelog', 'list', '.'])).filter((f) =>
    /^runtime\/(admin\.js|jobs\/|webhook\/)/.test(f),
  );
  assert.deepEqual(loaded, []);
});
