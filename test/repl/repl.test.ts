import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { startHttpServer } from '../helpers/http-server';
import { body, CONTINUATION, PROMPT, ReplProcess, tempDir } from './harness';

/** A safety net so a hung child fails the test instead of the run; no test relies on timing. */
const LIMITS = { timeout: 60_000 };

const CSV = 'id,name,amount\n1,lamp,12.50\n2,fridge,499.99\n3,door,80\n';

function startRepl(
  t: { after(fn: () => void): void },
  env: Record<string, string | undefined> = {},
): { repl: ReplProcess; dir: string } {
  const dir = tempDir('repl');
  writeFileSync(join(dir, 'items.csv'), CSV);
  const repl = new ReplProcess(dir, env);
  t.after(() => repl.kill());
  return { repl, dir };
}

test('a statement spans lines until its ";" and PRINT prints', LIMITS, async (t) => {
  const { repl, dir } = startRepl(t);
  assert.equal(
    await repl.response(),
    `SQL CDC REPL — workspace ${join(dir, 'ws')} (from SQLCDC_HOME)\nType .help for help, Ctrl-D to exit.\n${PROMPT}`,
  );
  assert.equal(await repl.send('PRINT'), CONTINUATION);
  assert.equal(await repl.send("'hello from the REPL';"), `hello from the REPL\n${PROMPT}`);

  assert.equal(await repl.send('SELECT *'), CONTINUATION);
  assert.equal(await repl.send('  FROM DRIVE'), CONTINUATION);
  const table = body(await repl.send("  'items.csv';"));
  assert.match(table, /fridge/);
  assert.match(table, /\(3 rows\)/);
  assert.equal(await repl.close(), 0);
});

test(
  'a %%job cell goes on over lines until an empty line, as a cell magic in IPython, then saves its script',
  LIMITS,
  async (t) => {
    const { repl } = startRepl(t);
    await repl.response();
    assert.equal(await repl.send('%%job nightly writer'), CONTINUATION);
    assert.equal(await repl.send("PRINT 'first';"), CONTINUATION);
    assert.equal(await repl.send("PRINT 'second';"), CONTINUATION);
    assert.match(body(await repl.send('')), /^job nightly \(writer\) created with this writer: [0-9a-f]{32}\n$/);
    assert.match(
      body(await repl.send('%job run nightly')),
      /^first\nsecond\njob nightly: success, 0 rows \(run \d+\)\n$/,
    );
  },
);

test('a magic runs at once and changes the session', LIMITS, async (t) => {
  const { repl } = startRepl(t);
  await repl.response();
  assert.equal(body(await repl.send('%limit 2')), 'display limit: 2 rows\n');
  const table = body(await repl.send("SELECT * FROM DRIVE 'items.csv';"));
  assert.match(table, /showing 2 of 3 rows/);
  assert.doesNotMatch(table, /door/);
});

test(
  '%describe prints the profile as a table; %plot says what it would draw and that it needs Jupyter',
  LIMITS,
  async (t) => {
    const { repl } = startRepl(t);
    await repl.response();
    await repl.send("SELECT * FROM DRIVE 'items.csv';");
    const profile = body(await repl.send('%describe'));
    assert.match(profile, /^Profile of the pipeline dataset \(3 rows, 3 columns\)\n/);
    assert.match(profile, /│ name +│ string +│ +0 │ +3 │ door +│ lamp +│ NULL +│/);
    assert.equal(
      body(await repl.send('%plot bar x=name y=amount')),
      'needs Jupyter: bar chart of amount by name, 3 rows\n',
    );
    assert.match(
      body(await repl.send('%plot pie x=name')),
      /^error: %plot at line 1, column 7: unknown chart kind 'pie'.*\n {2}%plot pie x=name\n {8}\^\n$/,
    );
  },
);

test(
  'an error shows the statement, line, column and a caret, and the session stays usable with its dataset',
  LIMITS,
  async (t) => {
    const { repl } = startRepl(t);
    await repl.response();
    await repl.send("SELECT * FROM DRIVE 'items.csv';");

    const err = body(await repl.send("PRINT 'ok';  SELECT * FROM DRIVE 'nowhere.csv';"));
    const lines = err.split('\n');
    assert.equal(lines[0], 'ok');
    // The caret is under the path the error is about.
    assert.match(lines[1], /^error: SELECT FROM DRIVE at line 1, column 35: .*nowhere\.csv/);
    assert.equal(lines[2], "  PRINT 'ok';  SELECT * FROM DRIVE 'nowhere.csv';");
    assert.equal(lines[3], `  ${' '.repeat(34)}^`);
    assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');

    const syntax = body(await repl.send('APPLY FILTR x;'));
    assert.match(syntax, /^error: .*line 1, column 7/);
    assert.match(syntax, /\n {8}\^\n$/);

    // The dataset loaded before the errors is still there.
    assert.equal(body(await repl.send("PRINT 'rows: #data.count()';")), 'rows: 3\n');
  },
);

test('an error in the second line of a multi-line statement points into that line', LIMITS, async (t) => {
  const { repl } = startRepl(t);
  await repl.response();
  assert.equal(await repl.send('SELECT * FROM DRIVE'), CONTINUATION);
  const err = body(await repl.send("    'missing.csv';"));
  assert.match(err, /^error: SELECT FROM DRIVE at line 2, column 6: /);
  const syntax = body((await repl.send('PRINT')) + (await repl.send('  42 43;')));
  assert.match(syntax, /line 2, column \d+/);
  assert.match(syntax, /\n {2} {2}42 43;\n/);
});

test('Ctrl-C cancels a running statement; the REPL stays alive and keeps its dataset', LIMITS, async (t) => {
  // Never answers: only cancelling can end the statement.
  const server = await startHttpServer(() => undefined);
  t.after(() => server.close());

  const { repl } = startRepl(t);
  await repl.response();
  await repl.send("SELECT * FROM DRIVE 'items.csv';");

  repl.child.stdin.write(`SELECT * FROM HTTP (GET ${server.url}/never);\n`);
  await server.received(1);
  repl.child.kill('SIGINT');
  const cancelled = body(await repl.response());
  assert.match(cancelled, /^error: SELECT FROM HTTP at line 1, column 1: cancelled\n$/);
  assert.equal(server.requests.length, 1);
  assert.ok(repl.alive);

  assert.equal(body(await repl.send("PRINT 'still #data.count() rows';")), 'still 3 rows\n');
  assert.equal(await repl.close(), 0);
});

test(
  'Ctrl-C while a statement is being typed drops it; at an empty prompt node asks for a second one',
  LIMITS,
  async (t) => {
    const { repl } = startRepl(t);
    await repl.response();
    assert.equal(await repl.send('SELECT * FROM'), CONTINUATION);
    repl.child.kill('SIGINT');
    assert.match(await repl.response(), new RegExp(`${PROMPT}$`));
    assert.equal(body(await repl.send("PRINT 'fresh';")), 'fresh\n');

    repl.child.kill('SIGINT');
    assert.match(await repl.response(), /press Ctrl\+C again/);
    assert.ok(repl.alive);
  },
);

test('input arriving all at once (a paste, a pipe) runs in order, and the end of input exits', LIMITS, async (t) => {
  const { repl } = startRepl(t);
  await repl.response();
  repl.child.stdin.write(
    "PRINT 'one';\nSELECT *\nFROM DRIVE 'items.csv';\n.doc amount\n%limit 1\nPRINT 'rows: #data.count()';\nPRINT 'last, no semicolon'",
  );
  assert.equal(await repl.close(), 0);
  const out = repl.stdout;
  const order = ['one', 'fridge', 'amount: string', 'display limit: 1 row', 'rows: 3', 'last, no semicolon'].map((s) =>
    out.indexOf(s),
  );
  assert.ok(
    order.every((i) => i >= 0),
    out,
  );
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
    out,
  );
});

test('history is kept in the workspace, without lines that carry secrets', LIMITS, async (t) => {
  const { repl, dir } = startRepl(t);
  await repl.response();
  await repl.send("PRINT 'remember me';");
  await repl.send('%connection add api http://127.0.0.1:9 --bearer s3cret');
  await repl.send('%connection add keyed http://127.0.0.1:9 --header "X-Api-Key: s3cret"');
  await repl.send('%connection add db postgres://app:s3cret@127.0.0.1:5/app');
  await repl.send('%connection add hook http://127.0.0.1:9/hook?token=s3cret');
  await repl.send('%connection add blob az://acct@lake/data?sas=sv%3D2024%26sig%3Ds3cret');
  await repl.send('%var set --encrypted token s3cret');
  await repl.send('%var set --encypted token s3cret');
  await repl.send(`%job update nightly --signing-secret whsec_${Buffer.alloc(24, 1).toString('base64')}`);
  await repl.send(`%job create nightly --signing-secret whsec_${Buffer.alloc(24, 1).toString('base64')}`);
  await repl.send(`%job update nightly --signng-secret whsec_${Buffer.alloc(24, 1).toString('base64')}`);
  await repl.send("PRINT 'sqk_abcDEF-123_x';");
  await repl.send(`SELECT * FROM HTTP (GET http://127.0.0.1:9/x) WITH HEADERS '[{"Authorization": "Bearer s3cret"}]';`);
  await repl.send(`SELECT * FROM HTTP (GET http://127.0.0.1:9/x) WITH HEADERS '{"x-functions-key": "s3cret"}';`);
  // CREDENTIALS (spec 5.5) is a secret, also when its value comes on the next line.
  const staged =
    "PUSH INTO HTTP ON_UPSERT (POST /x) PAYLOAD ({{id}}) TRACE INTO [db] TABLE 't' STAGE ON 'in' CREDENTIALS";
  await repl.send(`${staged} 's3cret';`);
  await repl.send(staged);
  await repl.send('');
  await repl.send("  's3cret';");
  await repl.send('%limit 7');
  assert.equal(await repl.close(), 0);
  const file = join(dir, 'ws', 'repl_history');
  assert.deepEqual(readFileSync(file, 'utf8').split('\n'), ["PRINT 'remember me';", staged, '%limit 7', '']);
  assert.equal(statSync(file).mode & 0o777, 0o600);

  // A second REPL on the same workspace appends to it.
  const again = new ReplProcess(dir);
  t.after(() => again.kill());
  await again.response();
  await again.send('%workspace');
  assert.equal(await again.close(), 0);
  assert.deepEqual(readFileSync(file, 'utf8').trim().split('\n'), [
    "PRINT 'remember me';",
    staged,
    '%limit 7',
    '%workspace',
  ]);
});

test('.help lists the commands and magics, .doc shows documentation', LIMITS, async (t) => {
  const { repl } = startRepl(t);
  await repl.response();
  const help = body(await repl.send('.help'));
  for (const word of [
    '.doc',
    '.exit',
    '.break',
    '%connection',
    '%limit',
    '%reset',
    'Tab completes',
    'Ctrl-C',
    '| [connection]>',
  ]) {
    assert.ok(help.includes(word), `.help mentions ${word}:\n${help}`);
  }
  // A usage too long for its column has its description on the next line, not run on after it.
  assert.match(help, /^ {2}%limit \[N\] {19}shows or sets/m);
  assert.match(help, /^ {2}%webhook start \[--port N\][^\n]*\| stop\n {4}a webhook listener in the session/m);
  assert.match(help, /Tab completes keywords, #functions, \[connections\], columns, %magics and their options/);
  assert.match(body(await repl.send('.doc #left')), /^#left\(/);
  assert.match(body(await repl.send('.doc APPLY FILTER')), /APPLY FILTER/);
  await repl.send("SELECT * FROM DRIVE 'items.csv';");
  assert.match(body(await repl.send('.doc amount')), /^amount: \w+/);
  assert.equal(body(await repl.send('.doc nothing_here')), "no documentation for 'nothing_here'; try .help\n");
  // `.doc [connection]`, as .help and docs/repl.md offer it: its settings, secrets hidden.
  await repl.send('%connection add [my api] http://127.0.0.1:9 --bearer T0P-S3CRET');
  const conn = body(await repl.send('.doc [my api]'));
  assert.match(conn, /^\[my api\] http connection\n/);
  assert.ok(conn.includes('http://127.0.0.1:9') && !conn.includes('T0P-S3CRET'), conn);
});

test('the workspace defaults to ./.sqlcdc under the working directory', LIMITS, async (t) => {
  const dir = tempDir('repl-default');
  const repl = new ReplProcess(dir, { SQLCDC_HOME: undefined });
  t.after(() => repl.kill());
  await repl.response();
  assert.match(body(await repl.send('%workspace')), new RegExp(`workspace: ${escape(join(dir, '.sqlcdc'))}`));
});

test('the banner names the workspace found in a parent folder, which the session uses', LIMITS, async (t) => {
  const dir = tempDir('repl-parent');
  mkdirSync(join(dir, '.sqlcdc'));
  mkdirSync(join(dir, 'sub'));
  const repl = new ReplProcess(join(dir, 'sub'), { SQLCDC_HOME: undefined });
  t.after(() => repl.kill());
  assert.match(
    await repl.response(),
    new RegExp(`^SQL CDC REPL — workspace ${escape(join(dir, '.sqlcdc'))} \\(found in a parent folder\\)\n`),
  );
  assert.match(body(await repl.send('%workspace')), new RegExp(`^workspace: ${escape(join(dir, '.sqlcdc'))}\n`));
  assert.ok(!existsSync(join(dir, 'sub', '.sqlcdc')));
});

test(
  'piped input (not a terminal) prints no banner and no prompts: only what the statements print',
  LIMITS,
  async () => {
    const dir = tempDir('repl-pipe');
    writeFileSync(join(dir, 'items.csv'), CSV);
    const env = { SQLCDC_HOME: join(dir, 'ws') };
    assert.deepEqual(await runCli(dir, [], { input: "PRINT 'hi';\n", env }), { code: 0, stdout: 'hi\n', stderr: '' });
    const r = await runCli(dir, ['repl'], {
      input: "SELECT *\n  FROM DRIVE 'items.csv';\n%limit 1\nPRINT 'rows: #data.count()';\n",
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /sqlcdc>|\.\.\.>|SQL CDC REPL/);
    assert.match(r.stdout, /^┌/, 'the table comes first');
    assert.match(r.stdout, /\(3 rows\)\ndisplay limit: 1 row\nrows: 3\n$/);
    // A failed statement: the lines after it still run, and the exit code says it failed.
    const failing = await runCli(dir, [], { input: "SELECT * FROM DRIVE 'nowhere.csv';\nPRINT 'after';\n", env });
    assert.equal(failing.code, 1, failing.stderr);
    assert.match(
      failing.stdout,
      /^error: SELECT FROM DRIVE at line 1, column 22: file not found: nowhere\.csv\n[^]*\nafter\n$/,
    );
  },
);

test(
  '.load runs a SQL CDC script as one cell, .save writes the statements that ran, .clear starts a new pipeline',
  LIMITS,
  async (t) => {
    const { repl, dir } = startRepl(t);
    writeFileSync(
      join(dir, 'load.sql'),
      "%limit 1\nSELECT * FROM DRIVE 'items.csv';\nPRINT 'loaded #data.count() rows';\n",
    );
    writeFileSync(
      join(dir, 'broken.sql'),
      "PRINT 'first';\nSELECT * FROM DRIVE 'nowhere.csv';\nPRINT 'not reached';\n",
    );
    await repl.response();
    const loaded = body(await repl.send('.load load.sql'));
    assert.match(loaded, /^display limit: 1 row\nloaded 3 rows\n/);
    assert.match(loaded, /showing 1 of 3 rows/);

    const broken = body(await repl.send('.load broken.sql'));
    assert.match(broken, /^first\nerror: SELECT FROM DRIVE at line 2, column 22: .*nowhere\.csv/);
    assert.doesNotMatch(broken, /not reached/);
    assert.match(body(await repl.send('.load missing.sql')), /^cannot read missing\.sql: no such file or folder\n?$/);

    await repl.send('%connection add api http://127.0.0.1:9 --bearer s3cret');
    await repl.send('APPLY FILTER');
    await repl.send("  'id > 1';");
    assert.equal(body(await repl.send('.save saved.sql')), `saved 2 cell(s) to ${join(dir, 'saved.sql')}\n`);
    const saved = readFileSync(join(dir, 'saved.sql'), 'utf8');
    assert.equal(
      saved,
      "SELECT * FROM DRIVE 'items.csv';\nPRINT 'loaded #data.count() rows';\nAPPLY FILTER\n  'id > 1';\n",
    );

    assert.equal(body(await repl.send('.clear')), 'pipeline reset: empty dataset\n');
    assert.equal(body(await repl.send("PRINT 'rows: #data.count()';")), 'rows: 0\n');
    // What .save wrote runs again, as `sqlcdc run` would run it.
    assert.match(body(await repl.send('.load saved.sql')), /^loaded 3 rows\n[^]*\(showing 1 of 2 rows\)\n$/);
  },
);

test('.help describes the REPL commands for SQL CDC, not for JavaScript', LIMITS, async (t) => {
  const { repl } = startRepl(t);
  await repl.response();
  const help = body(await repl.send('.help'));
  assert.doesNotMatch(help, /\bJS\b|JavaScript|local context/);
  assert.match(help, /\.load +Run a SQL CDC script file/);
  assert.match(help, /\.save +Save the statements/);
  assert.match(help, /\.clear +Drop the statement being typed and start a new empty pipeline/);
});

test(
  'a line starting with "." inside a statement is part of it; an unknown .command is refused in turn',
  LIMITS,
  async (t) => {
    const { repl } = startRepl(t);
    await repl.response();
    // node takes such a line for a REPL command: the string's second line was dropped.
    assert.equal(await repl.send("PRINT 'first line"), CONTINUATION);
    assert.equal(await repl.send(".second line';"), `first line\n.second line\n${PROMPT}`);
    assert.equal(await repl.send("SELECT * FROM DRIVE 'items.csv' APPLY PIPELINE ("), CONTINUATION);
    assert.equal(body(await repl.send('.break')), '', 'a known command still runs inside a statement');
    assert.equal(body(await repl.send('.frob x')), 'unknown REPL command .frob: .help lists them\n');
    assert.equal(body(await repl.send('.hlep')), 'unknown REPL command .hlep: .help lists them; did you mean .help?\n');

    // Its message comes in turn, after the lines before it.
    repl.child.stdin.write("PRINT 'one';\n.frob\nPRINT 'two';\n");
    assert.equal(await repl.close(), 0);
    assert.match(repl.stdout, /one\n[^]*unknown REPL command \.frob[^]*two\n/);
  },
);

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
