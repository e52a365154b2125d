import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQLCDC, tempDir } from '../repl/harness';
import { runCli as sqlcdc } from '../helpers/cli';
import { startHttpServer } from '../helpers/http-server';

/** A safety net so a hung child fails the test instead of the run; no test relies on timing. */
const LIMITS = { timeout: 60_000 };

/** A working directory with a CSV and scripts in a subfolder (paths in scripts resolve against the cwd). */
function project(scripts: Record<string, string>): string {
  const dir = tempDir('cli');
  writeFileSync(join(dir, 'items.csv'), 'id,name,amount\n1,lamp,12.50\n2,"fridge, large",499.99\n3,door,80\n');
  mkdirSync(join(dir, 'scripts'));
  for (const [name, text] of Object.entries(scripts)) writeFileSync(join(dir, 'scripts', name), text);
  return dir;
}

const LOAD = `-- load and type the items
SELECT * FROM DRIVE 'items.csv';
APPLY SCHEMA (
  long id
  string name
  decimal(10,2) amount
);
PRINT 'loaded #data.count() rows';
`;

test('run --output json prints the final dataset as typed rows; PRINT goes to stderr', LIMITS, async () => {
  const dir = project({ 'load.sql': LOAD });
  const r = await sqlcdc(dir, ['run', 'scripts/load.sql', '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, 'loaded 3 rows\n');
  assert.equal(
    r.stdout,
    '[{"id":1,"name":"lamp","amount":12.50},{"id":2,"name":"fridge, large","amount":499.99},{"id":3,"name":"door","amount":80.00}]\n',
  );
  assert.deepEqual((JSON.parse(r.stdout) as unknown[])[1], { id: 2, name: 'fridge, large', amount: 499.99 });
  assert.ok(existsSync(join(dir, '.sqlcdc')), 'the default workspace is ./.sqlcdc');
});

test('run --output csv prints RFC 4180 CSV', LIMITS, async () => {
  const dir = project({ 'load.sql': LOAD });
  const r = await sqlcdc(dir, ['run', 'scripts/load.sql', '--output', 'csv']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'id,name,amount\r\n1,lamp,12.50\r\n2,"fridge, large",499.99\r\n3,door,80.00\r\n');
});

test('run prints a table of every row by default', LIMITS, async () => {
  const rows = Array.from({ length: 60 }, (_, i) => `${i},row${i}`).join('\n');
  const dir = project({ 'many.sql': "SELECT * FROM DRIVE 'many.csv';" });
  writeFileSync(join(dir, 'many.csv'), `n,label\n${rows}\n`);
  const r = await sqlcdc(dir, ['run', 'scripts/many.sql']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /row0 /);
  assert.match(r.stdout, /row59 /);
  assert.match(r.stdout, /\(60 rows\)\n$/);
});

test('run prints a table of 160,000 rows', LIMITS, async () => {
  // cli-table3 takes its rows as one call's arguments (past ~120,000 the stack overflowed: exit 70)
  // and lays a table out in time that grows with the square of its rows.
  const rows = Array.from({ length: 160_000 }, (_, i) => `${i},row${i}${i === 123_456 ? ' the widest' : ''}`);
  const dir = project({ 'many.sql': "SELECT * FROM DRIVE 'many.csv';" });
  writeFileSync(join(dir, 'many.csv'), `n,label\n${rows.join('\n')}\n`);
  const r = await sqlcdc(dir, ['run', 'scripts/many.sql']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines.length, 160_000 + 7, 'top, two header lines, rule, the rows, bottom, count, and the last newline');
  assert.deepEqual(lines.slice(0, 5), [
    '┌────────┬──────────────────────┐',
    '│ n      │ label                │',
    '│ string │ string               │',
    '├────────┼──────────────────────┤',
    '│ 0      │ row0                 │',
  ]);
  assert.equal(lines[4 + 123_456], '│ 123456 │ row123456 the widest │');
  assert.deepEqual(lines.slice(-4), [
    '│ 159999 │ row159999            │',
    '└────────┴──────────────────────┘',
    '(160,000 rows)',
    '',
  ]);
});

test('a stdout that cannot be written (a full disk) is a failure with the reason, not a crash', LIMITS, () => {
  const dir = project({ 'load.sql': LOAD });
  const full = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(process.execPath, [SQLCDC, 'run', 'scripts/load.sql'], {
      cwd: dir,
      env: { ...process.env, SQLCDC_HOME: join(dir, 'ws') },
      stdio: ['ignore', full, 'pipe'],
      encoding: 'utf8',
    });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr, 'loaded 3 rows\nsqlcdc: cannot write the output: ENOSPC: no space left on device, write\n');
  } finally {
    closeSync(full);
  }
});

test('a script that only prints writes nothing on stdout, and [] for json', LIMITS, async () => {
  const dir = project({ 'hello.sql': "PRINT 'hello';\nPRINT 'world'" });
  const table = await sqlcdc(dir, ['run', 'scripts/hello.sql']);
  assert.deepEqual(table, { code: 0, stdout: '', stderr: 'hello\nworld\n' });
  const json = await sqlcdc(dir, ['run', 'scripts/hello.sql', '--output', 'json']);
  assert.equal(json.stdout, '[]\n');
});

test('a script error exits 1 with file:line:col, the statement and the reason on stderr', LIMITS, async () => {
  const dir = project({ 'bad.sql': "PRINT 'before';\n  SELECT * FROM DRIVE 'missing.csv';\nPRINT 'after';\n" });
  const r = await sqlcdc(dir, ['run', 'scripts/bad.sql', '--output', 'json']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  const lines = r.stderr.split('\n');
  assert.equal(lines[0], 'before');
  // The caret is under the path the error is about.
  assert.match(lines[1], /^scripts\/bad\.sql:2:24: SELECT FROM DRIVE: .*missing\.csv/);
  assert.equal(lines[2], "    SELECT * FROM DRIVE 'missing.csv';");
  assert.equal(lines[3], `  ${' '.repeat(23)}^`);
  assert.ok(!r.stderr.includes('after'));
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');

  const syntax = project({ 'syntax.sql': "PRINT 'x';\nAPPLY FILTR 'a';\n" });
  const s = await sqlcdc(syntax, ['run', 'scripts/syntax.sql']);
  assert.equal(s.code, 1);
  assert.match(s.stderr, /^scripts\/syntax\.sql:2:7: /);
});

test('the caret lines up under a line indented with tabs', LIMITS, async () => {
  const dir = project({ 'tabs.sql': "APPLY PIPELINE (\n\tPRINT 'a' X\n);\n" });
  const r = await sqlcdc(dir, ['run', 'scripts/tabs.sql']);
  assert.equal(r.code, 1);
  const lines = r.stderr.split('\n');
  assert.match(lines[0], /^scripts\/tabs\.sql:2:12: PRINT: /);
  // A terminal expands the line's tab: the caret's padding keeps it, so both move alike.
  assert.equal(lines[1], "  \tPRINT 'a' X");
  assert.equal(lines[2], `  \t${' '.repeat(10)}^`);
});

test('the script line under an error shows a URL as written, only its secrets masked', LIMITS, async () => {
  const dir = project({
    'key.sql': 'SELECT * FROM HTTP (GET http://u:PW1@127.0.0.1:1/a?api_key=K9&q=(1)); -- all, for now\n',
  });
  const r = await sqlcdc(dir, ['run', 'scripts/key.sql']);
  assert.equal(r.code, 1);
  const lines = r.stderr.split('\n');
  assert.match(lines[0], /^scripts\/key\.sql:1:25: SELECT FROM HTTP: connection refused/);
  assert.equal(lines[1], '  SELECT * FROM HTTP (GET http://u:****@127.0.0.1:1/a?api_key=****&q=(1)); -- all, for now');
  assert.equal(lines[2], `  ${' '.repeat(24)}^`);
  assert.doesNotMatch(r.stderr, /PW1|K9/);
});

test(
  'a URL written with a blank in it has its secret query values masked in the line under an error too',
  LIMITS,
  async () => {
    const dir = project({
      'blank.sql': "PRINT 'http://h/a b?token=LONGSECRET1&page=2' garbage;\n",
      'relative.sql': 'SELECT * FROM HTTP (GET /x?api_key=SECRET3) garbage;\n',
      'function.sql': 'SELECT * FROM HTTP (GET http://h/x?api_key=#trygetvar(k)&q=1) garbage;\n',
    });
    const r = await sqlcdc(dir, ['run', 'scripts/blank.sql']);
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n');
    assert.match(lines[0], /^scripts\/blank\.sql:1:47: PRINT: expected ';' but found 'garbage'/);
    assert.equal(lines[1], "  PRINT 'http://h/a b?token=****&page=2' garbage;");
    // The caret moves with what the mask took out before it, and stays under 'garbage'.
    assert.equal(lines[2], `  ${' '.repeat(39)}^`);
    assert.doesNotMatch(r.stderr, /LONGSECRET1/);
    // A relative path's query as written inside ( … ): the value is masked, the `)` after it stays shown.
    const relative = await sqlcdc(dir, ['run', 'scripts/relative.sql']);
    assert.equal(relative.stderr.split('\n')[1], '  SELECT * FROM HTTP (GET /x?api_key=****) garbage;');
    assert.doesNotMatch(relative.stderr, /SECRET3/);
    // A value that is a function giving the key hides nothing: shown as written, not as `=****#trygetvar(k)`.
    const fn = await sqlcdc(dir, ['run', 'scripts/function.sql']);
    assert.equal(fn.stderr.split('\n')[1], '  SELECT * FROM HTTP (GET http://h/x?api_key=#trygetvar(k)&q=1) garbage;');
  },
);

test(
  'a secret header written in HEADERS is masked in the line under an error, the caret moved with it',
  LIMITS,
  async () => {
    const dir = project({
      'hdr.sql':
        `SELECT * FROM HTTP (GET http://127.0.0.1:1/a) WITH HEADERS '[{"Authorization": "Bearer HDRSECRET1"}, ` +
        `{"key": "X-Api-Key", "value": "HDRSECRET2"}, {"X-Trace": "t-1"}]' garbage;\n`,
    });
    const r = await sqlcdc(dir, ['run', 'scripts/hdr.sql']);
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n');
    assert.equal(
      lines[1],
      `  SELECT * FROM HTTP (GET http://127.0.0.1:1/a) WITH HEADERS '[{"Authorization": "****"}, ` +
        `{"key": "X-Api-Key", "value": "****"}, {"X-Trace": "t-1"}]' garbage;`,
    );
    assert.equal(lines[2], `  ${' '.repeat(lines[1].indexOf('garbage') - 2)}^`);
    assert.doesNotMatch(r.stderr, /HDRSECRET/);
  },
);

test(
  'a header named …-key in HEADERS is a secret under an error (x-functions-key, Ocp-Apim-Subscription-Key, X-Auth-Key); Idempotency-Key is not',
  LIMITS,
  async () => {
    const dir = project({
      'keys.sql':
        `SELECT * FROM HTTP (GET http://127.0.0.1:1/a) HEADERS '{"x-functions-key": "KEYSECRET1", ` +
        `"Ocp-Apim-Subscription-Key": "KEYSECRET2", "X-Auth-Key": "KEYSECRET3", "Idempotency-Key": "k-1"}' garbage;\n`,
    });
    const r = await sqlcdc(dir, ['run', 'scripts/keys.sql']);
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n');
    assert.equal(
      lines[1],
      `  SELECT * FROM HTTP (GET http://127.0.0.1:1/a) HEADERS '{"x-functions-key": "****", ` +
        `"Ocp-Apim-Subscription-Key": "****", "X-Auth-Key": "****", "Idempotency-Key": "k-1"}' garbage;`,
    );
    assert.equal(lines[2], `  ${' '.repeat(lines[1].indexOf('garbage') - 2)}^`);
    assert.doesNotMatch(r.stderr, /KEYSECRET/);
  },
);

test(
  'TRACE … STAGE ON a local folder refuses CREDENTIALS at their value; CREDENTIALS (spec 5.5) are masked in the line shown and in job show',
  LIMITS,
  async () => {
    const db = '%connection add db sqlite:trace.db\n';
    const push = (credentials: string) =>
      `PUSH INTO HTTP ON_UPSERT (POST http://127.0.0.1:1/x) PAYLOAD ({{id}}) TRACE INTO [db] TABLE 't' STAGE ON 'staging' CREDENTIALS '${credentials}';\n`;
    const dir = project({ 'stage.sql': db + push('hunter2'), 'quoted.sql': db + push("it''s-Secret9") });
    const r = await sqlcdc(dir, ['run', 'scripts/stage.sql']);
    assert.equal(r.code, 1);
    const [added, ...lines] = r.stderr.split('\n');
    assert.equal(added, 'connection [db] added (sqlite)');
    const value = push('hunter2').indexOf("'hunter2'") + 2;
    assert.equal(
      lines[0],
      `scripts/stage.sql:2:${value}: PUSH INTO HTTP: CREDENTIALS sign in to a remote stage (FTP user:password, S3 KEY_ID:SECRET, Azure ACCOUNT:KEY); a folder on this machine takes none`,
    );
    assert.equal(lines[1], `  ${push('****').trimEnd()}`);
    assert.equal(lines[2], `  ${' '.repeat(value - 1)}^`);
    const quoted = await sqlcdc(dir, ['run', 'scripts/quoted.sql']);
    assert.equal(quoted.stderr.split('\n')[2], `  ${push('****').trimEnd()}`);
    assert.doesNotMatch(r.stderr + quoted.stderr, /hunter2|Secret9/);
    // The value on the line after CREDENTIALS, where the error points.
    writeFileSync(join(dir, 'scripts', 'split.sql'), `${push('x').replace(/ 'x';\n$/, '')}\n\n  'hunter2' garbage;\n`);
    const split = (await sqlcdc(dir, ['run', 'scripts/split.sql'])).stderr.split('\n');
    assert.match(split[0], /^scripts\/split\.sql:3:13: PUSH INTO HTTP: expected ';' .*but found 'garbage'$/);
    assert.deepEqual(split.slice(1, 3), ["    '****' garbage;", `  ${' '.repeat(9)}^`]);
    // A job keeps its script as written, and shows it masked.
    const made = await sqlcdc(dir, ['job', 'create', 'staged', '--writer', 'scripts/stage.sql']);
    assert.equal(made.code, 0, made.stderr);
    const shown = await sqlcdc(dir, ['job', 'show', 'staged']);
    assert.match(shown.stdout, /CREDENTIALS '\*\*\*\*'/);
    assert.doesNotMatch(shown.stdout, /hunter2/);
  },
);

test('bad usage exits 2 with the usage on stderr', LIMITS, async () => {
  const dir = project({ 'ok.sql': "PRINT 'x';" });
  for (const args of [
    ['run'],
    ['run', 'scripts/ok.sql', '--colour'],
    ['run', 'scripts/ok.sql', '--output', 'xml'],
    ['run', 'scripts/ok.sql', 'extra.sql'],
    ['frobnicate'],
    ['repl', '--output', 'json'],
    ['repl', '--existing', 'kernel.json', '--workspace', 'ws'],
    ['run', 'scripts/ok.sql', '--interactive'],
    ['run', 'scripts/ok.sql', '--workspace='],
  ]) {
    const r = await sqlcdc(dir, args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^sqlcdc: .+\n\nUsage:\n/, args.join(' '));
  }
  assert.match((await sqlcdc(dir, ['run', 'scripts/ok.sql', '--colour'])).stderr, /^sqlcdc: unknown option --colour\n/);
  assert.match((await sqlcdc(dir, ['run', 'scripts/ok.sql', '--output'])).stderr, /^sqlcdc: --output needs a value\n/);
  const missing = await sqlcdc(dir, ['run', 'nowhere.sql']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^sqlcdc: cannot read nowhere\.sql: no such file or folder\n$/);
  // A command group's bad usage shows that group's usage, as `sqlcdc job --help` does, not the whole CLI's.
  for (const [args, line] of [
    [['job', 'update', 'x', '--bogus'], /^ {2}sqlcdc job update NAME /m],
    [['webhook', 'key', 'frob'], /^ {2}sqlcdc webhook key new /m],
    [['changelog', 'show'], /^ {2}sqlcdc changelog show <file\.eds>/m],
  ] as const) {
    const r = await sqlcdc(dir, [...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /^sqlcdc: .+\n\nUsage:\n/, args.join(' '));
    assert.match(r.stderr, line, args.join(' '));
    assert.doesNotMatch(r.stderr, /sqlcdc \[repl\]/, args.join(' '));
  }
});

test('a mistyped command, action or option is answered with the one meant, as git does', LIMITS, async () => {
  const dir = tempDir('cli');
  for (const [args, said] of [
    [
      ['jbo', 'list'],
      "unknown command 'jbo' (repl, run, workspace, changelog, job, serve, webhook, help); did you mean job?",
    ],
    [
      ['help', 'rnu'],
      "unknown command 'rnu' (repl, run, workspace, changelog, job, serve, webhook, help); did you mean run?",
    ],
    [
      ['job', 'lsit'],
      "unknown job action 'lsit' (create, list, show, update, run, delete, trigger, runs); did you mean list?",
    ],
    [['changelog', 'shwo', 'x.eds'], "unknown changelog action 'shwo' (show, list, replay); did you mean show?"],
    [['webhook', 'key', 'revok', 'k'], "unknown webhook key action 'revok' (new, list, revoke); did you mean revoke?"],
    [['workspace', 'rotate'], "unknown workspace command 'rotate' (rotate-key); did you mean rotate-key?"],
    [['run', 'x.sql', '--otput', 'json'], 'unknown option --otput; did you mean --output?'],
    [['job', 'list', '--workspce', 'ws'], 'unknown option --workspce; did you mean --workspace?'],
    // Nothing near: the list alone.
    [['foo'], "unknown command 'foo' (repl, run, workspace, changelog, job, serve, webhook, help)"],
    [['run', 'x.sql', '-x'], 'unknown option -x'],
    [['workspace'], 'workspace needs a command (rotate-key)'],
  ] as const) {
    const r = await sqlcdc(dir, [...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stderr.split('\n')[0], `sqlcdc: ${said}`, args.join(' '));
  }
  assert.equal(existsSync(join(dir, '.sqlcdc')), false);
});

test('--help and --version', LIMITS, async () => {
  const dir = tempDir('cli');
  const help = await sqlcdc(dir, ['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage:\n {2}sqlcdc \[repl\]/);
  assert.match(help.stdout, /sqlcdc run <script\.sql> \[--workspace DIR\] \[--output table\|json\|csv\]/);
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.deepEqual(await sqlcdc(dir, ['--version']), { code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  assert.equal((await sqlcdc(dir, ['-v'])).stdout, `${pkg.version}\n`);
  // Each command group answers --help with its own usage, as git and npm do, and makes no workspace.
  for (const [group, line] of [
    ['job', /^ {2}sqlcdc job create NAME /m],
    ['serve', /^ {2}sqlcdc serve \[--host 127\.0\.0\.1\]/m],
    ['webhook', /^ {2}sqlcdc webhook key new /m],
    ['changelog', /^ {2}sqlcdc changelog replay <file\.eds> --job NAME/m],
    ['workspace', /^ {2}sqlcdc workspace rotate-key/m],
  ] as const) {
    for (const flag of ['--help', '-h']) {
      const r = await sqlcdc(dir, [group, flag]);
      assert.equal(r.code, 0, `${group} ${flag}: ${r.stderr}`);
      assert.match(r.stdout, /^Usage:\n/);
      assert.match(r.stdout, line);
    }
  }
  assert.equal((await sqlcdc(dir, ['job', 'show', '--help'])).code, 0);
  // `sqlcdc help [GROUP]`, as git and npm take it.
  assert.deepEqual(await sqlcdc(dir, ['help']), help);
  assert.deepEqual(await sqlcdc(dir, ['help', 'job']), await sqlcdc(dir, ['job', '--help']));
  // run and repl, which are no groups, have a usage of their own too: their lines, options and exit codes.
  const run = await sqlcdc(dir, ['help', 'run']);
  assert.equal(run.code, 0);
  assert.match(
    run.stdout,
    /^Usage:\n {2}sqlcdc run <script\.sql> \[--workspace DIR\] \[--output table\|json\|csv\]\n\nOptions:\n/,
  );
  assert.match(run.stdout, /^ {2}--output FORMAT +table \(default\), json or csv/m);
  assert.match(run.stdout, /^Exit codes of run: /m);
  assert.doesNotMatch(run.stdout, /sqlcdc job|--existing/);
  assert.deepEqual(await sqlcdc(dir, ['run', '--help']), run);
  const repl = await sqlcdc(dir, ['repl', '-h']);
  assert.match(repl.stdout, /^Usage:\n {2}sqlcdc \[repl\] \[--workspace DIR\] \[-i\]\n {2}sqlcdc repl --existing/);
  assert.match(repl.stdout, /^ {2}--existing FILE /m);
  assert.doesNotMatch(repl.stdout, /sqlcdc run|--output/);
  // A bad run command line is answered with run's usage, as a group's is with the group's.
  const bad = await sqlcdc(dir, ['run']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, `sqlcdc: run needs a script file\n\n${run.stdout}`);
  assert.equal(existsSync(join(dir, '.sqlcdc')), false);
});

test(
  'sqlcdc --help and docs/cli.md name every subcommand the command groups know, the docs every option',
  LIMITS,
  async () => {
    const dir = tempDir('cli');
    const helpLines = (await sqlcdc(dir, ['--help'])).stdout.split('\n');
    const docs = join(__dirname, '..', '..', '..', 'docs');
    const cliDoc = readFileSync(join(docs, 'cli.md'), 'utf8');
    const allDocs = readdirSync(docs)
      .map((f) => readFileSync(join(docs, f), 'utf8'))
      .join('\n');
    for (const group of ['job', 'serve', 'webhook', 'changelog', 'workspace']) {
      const usage = (await sqlcdc(dir, [group, '--help'])).stdout;
      // The whole usage, options included: the summary is the groups' own lines, not a second copy.
      for (const line of usage.split('\n').filter((l) => l.startsWith('  sqlcdc ')))
        assert.ok(helpLines.includes(line), `sqlcdc --help lacks the line of sqlcdc ${group} --help: ${line}`);
      const verbs = usage.split('\n').flatMap((l) => / {2}sqlcdc \S+ ([a-z|-]+)/.exec(l)?.[1].split('|') ?? []);
      for (const verb of verbs) {
        // `sqlcdc job show|run|delete NAME` names each of its verbs.
        const named = new RegExp(`sqlcdc ${group} ([a-z-]+[|/])*${verb}\\b`);
        const word = new RegExp(`(^| |\\|)${verb}( |\\||$)`);
        assert.ok(
          helpLines.some((l) => l.startsWith(`  sqlcdc ${group}`) && word.test(l)),
          `sqlcdc --help lacks sqlcdc ${group} ${verb}`,
        );
        assert.match(cliDoc, named, `docs/cli.md lacks sqlcdc ${group} ${verb}`);
      }
      for (const option of new Set(usage.match(/--[a-z-]+/g)))
        assert.ok(allDocs.includes(option), `no page of docs/ explains sqlcdc ${group} ${option}`);
    }
  },
);

test('--workspace chooses the workspace folder', LIMITS, async () => {
  const dir = project({ 'ws.sql': '%workspace\n' });
  const r = await sqlcdc(dir, ['run', 'scripts/ws.sql', '--workspace', 'elsewhere']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes(`workspace: ${join(dir, 'elsewhere')}`), r.stderr);
  assert.ok(existsSync(join(dir, 'elsewhere')));
});

test(
  'run in a subfolder uses the .sqlcdc of a parent folder; SQLCDC_HOME wins over it, --workspace over both',
  LIMITS,
  async () => {
    const dir = project({ 'ws.sql': '%workspace\n' });
    mkdirSync(join(dir, '.sqlcdc'));
    const sub = join(dir, 'scripts');
    const workspaceOf = async (options: Parameters<typeof sqlcdc>[2], ...args: string[]) => {
      const r = await sqlcdc(sub, ['run', 'ws.sql', ...args], options);
      assert.equal(r.code, 0, r.stderr);
      return /^workspace: (.*)$/m.exec(r.stderr)?.[1];
    };
    assert.equal(await workspaceOf({}), join(dir, '.sqlcdc'));
    assert.ok(!existsSync(join(sub, '.sqlcdc')), 'no new workspace in the subfolder');
    const home = join(tempDir('cli-home'), 'home');
    assert.equal(await workspaceOf({ env: { SQLCDC_HOME: home } }), home);
    assert.equal(await workspaceOf({ env: { SQLCDC_HOME: home } }, '--workspace', 'mine'), join(sub, 'mine'));
  },
);

test('SIGINT cancels the running statement and exits 130', LIMITS, async (t) => {
  // Never answers: only cancelling can end the statement.
  const server = await startHttpServer(() => undefined);
  t.after(() => server.close());
  const dir = project({ 'slow.sql': `SELECT * FROM HTTP (GET ${server.url}/never);\nPRINT 'not reached';\n` });
  const r = await sqlcdc(dir, ['run', 'scripts/slow.sql'], {
    started: (child) => void server.received(1).then(() => child.kill('SIGINT')),
  });
  assert.equal(r.code, 130);
  assert.match(r.stderr, /^scripts\/slow\.sql:1:1: SELECT FROM HTTP: cancelled/);
  assert.ok(!r.stderr.includes('not reached'));
});

/** CPU seconds the process has used (Linux /proc), 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return 0;
  }
}

test(
  'a SIGINT that arrives while the last statement holds the event loop still ends the run with 130',
  LIMITS,
  async () => {
    // A regular expression that backtracks exponentially runs for many CPU seconds without a turn of the
    // event loop (not even to write PRINT's text out): the signal waits until the statement is over, and
    // the run must not then end as if never interrupted. It is sent once the CLI has spent more CPU than
    // starting takes, which it can only do in the expression. The backreference keeps V8 from going on
    // in its linear engine (runtime/util/user-regex.ts), which cannot run one.
    const dir = project({ 'hold.sql': "SELECT * FROM DRIVE 'hold.csv';\nAPPLY FILTER REGEX '^(a|a)+\\1$' ON 'x';\n" });
    writeFileSync(join(dir, 'hold.csv'), `x\n${'a'.repeat(27)}b\n`);
    const r = await sqlcdc(dir, ['run', 'scripts/hold.sql'], {
      started: (child) => {
        const poll = setInterval(() => {
          if (cpuSeconds(child.pid!) < 2.5) return;
          clearInterval(poll);
          child.kill('SIGINT');
        }, 50);
        child.on('exit', () => clearInterval(poll));
      },
    });
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /^scripts\/hold\.sql: error: cancelled$/m);
    assert.equal(r.stdout, '', 'no dataset printed');
  },
);

test('repl --existing hands over to the kernel client', LIMITS, async () => {
  const r = await sqlcdc(tempDir('cli'), ['repl', '--existing', 'no-such-kernel.json']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^sqlcdc: cannot attach to the kernel: .*no-such-kernel\.json/);
});

test(
  'output larger than a pipe holds arrives whole when piped to another program (job runs --output json | cat)',
  LIMITS,
  async () => {
    const dir = project({ 'w.sql': "PRINT 'x';\n" });
    assert.equal((await sqlcdc(dir, ['job', 'create', 'j', '--writer', 'scripts/w.sql', '--workspace', 'ws'])).code, 0);
    // 3,000 run records: ~400 KB of JSON, six times what a pipe holds.
    const record = (i: number) =>
      JSON.stringify({
        id: String(1795728017494 + i),
        by: 'webhook',
        start: '2026-11-26T21:00:00.000Z',
        end: '2026-11-26T21:00:00.001Z',
        rows: 1,
        outcome: 'success',
      });
    writeFileSync(
      join(dir, 'ws', 'jobs', 'j', 'runs.jsonl'),
      Array.from({ length: 3000 }, (_, i) => `${record(i)}\n`).join(''),
    );
    const piped = spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${SQLCDC}" job runs j --output json --workspace ws | cat`],
      {
        cwd: dir,
        encoding: 'utf8',
        maxBuffer: 16 << 20,
      },
    );
    assert.equal(piped.status, 0, piped.stderr);
    assert.equal((JSON.parse(piped.stdout) as unknown[]).length, 3000);
  },
);
