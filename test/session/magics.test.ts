import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';
import type { Result } from '../../runtime/results';
import { caretLines } from '../../runtime/errors';

function newSession(): Session {
  return tempSession({}, 'magic').session;
}

async function collect(session: Session, text: string): Promise<Result[]> {
  const out: Result[] = [];
  for await (const r of session.execute(text)) out.push(r);
  return out;
}

function cells(result: Result): string[][] {
  assert.equal(result.kind, 'table');
  return result.dataset.rows().map((r) => r.map(String));
}

test('%connection add, list and remove keep connections in the workspace without showing secrets', async () => {
  const s = newSession();
  await s.run('%connection add shop http://127.0.0.1:9/api --bearer s3cret-token --header "X-Tenant: acme"');
  await s.run('%connection add [my files] --drive ./data');
  const [list] = await s.run('%connection list');
  const rows = cells(list);
  assert.deepEqual(rows.map((r) => r[0]).sort(), ['my files', 'shop']);
  assert.deepEqual(rows.find((r) => r[0] === 'my files')!.slice(1), ['drive', '{"root":"./data"}']);
  const shop = rows.find((r) => r[0] === 'shop')!;
  assert.equal(shop[1], 'http');
  assert.match(shop[2], /\*\*\*\*/);
  assert.doesNotMatch(shop[2], /s3cret/);
  assert.match(shop[2], /X-Tenant/);

  const stored = readFileSync(join(s.workspace, 'connections.json'), 'utf8');
  assert.doesNotMatch(stored, /s3cret-token|acme/, 'secrets and header values are sealed at rest');
  assert.equal(statSync(join(s.workspace, 'connections.json')).mode & 0o077, 0, 'connections file is private');

  // a new session on the same workspace sees the connection
  const again = new Session({ workspace: s.workspace, cwd: s.cwd });
  const shopAgain = again.connections.get('SHOP');
  assert.ok(shopAgain.kind === 'http' && shopAgain.auth?.type === 'bearer');
  assert.equal(shopAgain.auth.token, 's3cret-token', 'the workspace keeps the secret to use it');
  assert.equal(shopAgain.headers?.['X-Tenant'], 'acme');

  await s.run('%connection remove shop');
  assert.equal(s.connections.find('shop'), undefined);
  await assert.rejects(s.run('%connection remove shop'), /unknown connection \[shop\]/);
});

test('%connection rejects bad input with a clear message', async () => {
  const s = newSession();
  await assert.rejects(s.run('%connection add api not-a-url'), /'not-a-url' is not a connection URL scheme/);
  await assert.rejects(
    s.run('%connection add api gopher://x'),
    /'gopher:' is not a connection URL scheme \(known: http: https: sqlite: postgres: postgresql: ftp: ftps: s3: az:\)/,
  );
  await assert.rejects(s.run('%connection add api http://u:pw@[bad'), /'http:\/\/\*\*\*\*@\[bad' is not a valid URL/);
  // A mistyped scheme is no scheme at all: the message quotes the URL, its password masked.
  for (const [url, shown] of [
    ['ht!tp://u:SCHEME-SECRET-1@h', 'ht!tp://****@h'],
    ['u!:SCHEME-SECRET-1@h/db', '****@h/db'],
  ])
    await assert.rejects(s.run(`%connection add api ${url}`), (e: Error) => {
      assert.ok(e.message.startsWith(`'${shown}' is not a connection URL scheme`), e.message);
      assert.ok(!e.message.includes('SCHEME-SECRET-1'), e.message);
      return true;
    });
  await assert.rejects(s.run('%connection add api http://x --bogus 1'), /unknown option --bogus/);
  await assert.rejects(s.run('%connection add api http://x --basic nocolon'), /--basic must look like a:b/);
  await assert.rejects(s.run('%connection frobnicate'), /unknown subcommand 'frobnicate'/);
});

test('%limit, %workspace, %help and an unknown magic', async () => {
  const s = newSession();
  assert.deepEqual(await s.run('%limit 5'), [{ kind: 'message', text: 'display limit: 5 rows' }]);
  assert.equal(s.displayLimit, 5);
  await assert.rejects(s.run('%limit zero'), /%limit takes a whole number/);
  const [ws] = await s.run('%workspace');
  assert.equal(ws.kind, 'message');
  assert.ok(ws.kind === 'message' && ws.text.includes(s.workspace));
  const [help] = await s.run('%help');
  const names = cells(help).map((r) => r[0]);
  for (const m of ['%connection', '%limit', '%reset', '%workspace', '%help'])
    assert.ok(
      names.some((n) => n.startsWith(m)),
      m,
    );
  const results = await collect(s, '%nosuch');
  assert.equal(results.length, 1);
  assert.equal(results[0].kind, 'error');
  assert.match(results[0].kind === 'error' ? results[0].error.message : '', /unknown magic %nosuch \(known: [^)]*\)$/);
  await assert.rejects(s.run('%conection list'), /unknown magic %conection \(known: .*\); did you mean %connection\?$/);
});

test('a magic that takes no arguments refuses one, at that word, rather than ignore it', async () => {
  const s = newSession();
  for (const [line, word] of [
    ['%reset now', 'now'],
    ['%workspace  /tmp/elsewhere', '/tmp/elsewhere'],
    ['%help connection', 'connection'],
  ]) {
    const results = await collect(s, line);
    assert.equal(results.length, 1, line);
    const error = results[0].kind === 'error' ? results[0].error : undefined;
    const name = line.split(' ')[0];
    assert.equal(error?.message, `${name} takes no arguments; usage: ${name}`, line);
    assert.equal(error?.position?.column, line.indexOf(word) + 1, line);
  }
});

test('%pipeline shows and sets the pipeline name; a name that cannot name a file is refused', async () => {
  const { session: s } = tempSession({}, 'magics');
  const shown = await s.run('%pipeline');
  assert.deepEqual(shown, [{ kind: 'message', text: 'pipeline: repl' }], 'the REPL default');
  assert.deepEqual(await s.run('%pipeline orders_sync'), [{ kind: 'message', text: 'pipeline: orders_sync' }]);
  assert.equal(s.pipeline, 'orders_sync');
  await assert.rejects(s.run('%pipeline ../escape'), /a pipeline name is letters, digits/);
  assert.equal(s.pipeline, 'orders_sync');
});

test('docs/session.md lists every magic %help lists', () => {
  const doc = readFileSync(resolve(__dirname, '../../../docs/session.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## Magics'));
  for (const m of newSession().magics.all())
    assert.match(
      table,
      new RegExp(`^\\| \`%${m.name}[ \`]`, 'm'),
      `%${m.name} is not in docs/session.md's table of magics`,
    );
});

test('a job script that does not parse is refused when saved (%%job, %job create), shown at its own line', async () => {
  const bad = "SELECT * FROM DRIVE 'rows.csv';\nPUSH INTO DRIVE FORMT CSV FILE 'out.csv';\n";
  const { session: s } = tempSession({ 'bad.sql': bad, 'two.sql': "CAPTURE 'a';\nCAPTURE 'b';\n" }, 'magic');
  const failure = async (cell: string) => {
    const error = (await collect(s, cell)).find((r) => r.kind === 'error');
    assert.ok(error?.kind === 'error', cell);
    return { error: error.error, shown: caretLines(error.source, error.error.position!) };
  };
  // In a %%job cell: the cell's own line and column (the body starts on its second line, with a leading magic).
  const cell = `%%job nightly writer\n%limit 5\n${bad}`;
  let { error, shown } = await failure(cell);
  assert.deepEqual([error.position?.line, error.position?.column], [4, 17]);
  assert.equal(error.statement, 'PUSH INTO DRIVE');
  assert.match(error.message, /found 'FORMT'/);
  assert.deepEqual(shown, ["PUSH INTO DRIVE FORMT CSV FILE 'out.csv';", `${' '.repeat(16)}^`]);
  // From a file: the file's line, named, and the caret under the file's text. A rule about the whole
  // script (one CAPTURE per pipeline) is checked as well.
  ({ error, shown } = await failure('%job create other --writer bad.sql'));
  assert.deepEqual([error.position?.line, error.position?.column, error.script?.name], [2, 17, 'bad.sql']);
  assert.equal(shown[1], `${' '.repeat(16)}^`);
  ({ error } = await failure('%job create other --reader two.sql'));
  assert.deepEqual([error.position?.line, error.script?.name], [2, 'two.sql']);
  assert.match(error.message, /only one CAPTURE/);
  // Nothing was saved; a good script still is, and a cell magic's body is its own.
  const listed = (await collect(s, '%job list')).map((r) => JSON.stringify(r)).join('\n');
  assert.doesNotMatch(listed, /nightly|other/);
  const saved = await collect(s, "%%job nightly writer\n%limit 5\nPRINT 'ok';\n");
  assert.equal(saved.filter((r) => r.kind === 'error').length, 0, JSON.stringify(saved));
});

test('an error of a magic line has its line and the column of the bad argument; the line shown masks the arguments that may be secrets', async () => {
  const s = newSession();
  const failure = async (cell: string) => {
    const results = await collect(s, cell);
    const error = results.find((r) => r.kind === 'error');
    assert.ok(error?.kind === 'error', cell);
    const { position } = error.error;
    const shown = caretLines(error.source, position!);
    return {
      message: error.error.message,
      line: position?.line,
      column: position?.column,
      shown,
      statement: error.error.statement,
    };
  };
  const at = (cell: string, word: string, line = 1) => cell.split('\n')[line - 1].indexOf(word) + 1;

  let cell = '%var remove nosuch';
  assert.deepEqual(await failure(cell), {
    message: "no variable 'nosuch'",
    line: 1,
    column: at(cell, 'nosuch'),
    shown: [cell, `${' '.repeat(at(cell, 'nosuch') - 1)}^`],
    statement: '%var',
  });
  // A later magic line, indented: its own line and column; a value that may be a secret is masked, width kept.
  cell = '%limit 5\n-- note\n  %var set --bogus key s3cret';
  let e = await failure(cell);
  assert.deepEqual([e.line, e.column], [3, at(cell, '--bogus', 3)]);
  assert.match(e.message, /^unknown option --bogus; usage: %var/);
  assert.deepEqual(e.shown, ['  %var set --bogus *** ******', `${' '.repeat(at(cell, '--bogus', 3) - 1)}^`]);
  cell = '%connection add api http://127.0.0.1:9 --basic s3cret';
  e = await failure(cell);
  assert.deepEqual([e.line, e.column, e.message], [1, at(cell, '--basic'), '--basic must look like a:b']);
  assert.equal(e.shown[0], '%connection add api ****************** --basic ******');
  // A flag's value written with = is found inside its word.
  cell = '%connection add api http://127.0.0.1:9 --timeout=soon';
  e = await failure(cell);
  assert.deepEqual([e.column, e.message], [at(cell, 'soon'), "--timeout takes seconds > 0, got 'soon'"]);
  for (const [bad, word] of [
    ['%limit 0', '0'],
    ['%pipeline a/b', 'a/b'],
    ['%plot bars x=a', 'bars'],
    ['%changelog drop x', 'drop'],
    ['%webhook take 1', '%'],
  ]) {
    e = await failure(bad);
    assert.deepEqual([e.line, e.column], [1, at(bad, word)], `${bad}: ${e.message}`);
    // Magics whose arguments hold no secret show their line as written.
    assert.equal(e.shown[0], bad);
  }
  // A value with blanks, unquoted: the first word too many is at fault, and no word of the value is shown.
  cell = '%var set --encrypted token hello s3cret world';
  e = await failure(cell);
  assert.deepEqual([e.line, e.column], [1, at(cell, 's3cret')]);
  assert.match(e.message, /^%var set takes one value: quote a value with blanks \('%var set token 'a b c''\)/);
  assert.doesNotMatch(e.message + e.shown.join('\n'), /hello|s3cret|world/);
  // A file or folder that cannot be read, a job or connection that does not exist, a bad value or subcommand.
  await s.run("%%job known writer\nPRINT 'x';\n");
  for (const [bad, word] of [
    ['%job create a --reader nofile.sql', 'nofile.sql'],
    ['%job run nosuch', 'nosuch'],
    ['%job update nosuch --webhook', 'nosuch'],
    ['%job update known --signing-secret -', '-'],
    ['%job trigger known --on sometimes --run known', 'sometimes'],
    ['%job frob known', 'frob'],
    ['%connection remove nosuch', 'nosuch'],
    ['%webhook frob', 'frob'],
    ['%webhook start --job nosuch', 'nosuch'],
    ['%changelog list nofolder', 'nofolder'],
  ]) {
    e = await failure(bad);
    assert.deepEqual([e.line, e.column], [1, bad.lastIndexOf(word) + 1], `${bad}: ${e.message}`);
  }
  e = await failure('%job create a --reader nofile.sql');
  assert.match(e.message, /cannot read nofile\.sql: no such file or folder$/);
  e = await failure('%job trigger known --on sucess --run known');
  assert.match(
    e.message,
    /^--on sucess: a trigger fires on completion, success, success-with-data, failure; did you mean success\?$/,
  );
  // A job's signing secret, given to update or by mistake to create (where --signing-secret is a switch).
  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  for (const bad of [
    `%job update known --signing-secret ${secret} --bogus`,
    `%job create other --writer w.sql --signing-secret ${secret}`,
  ]) {
    e = await failure(bad);
    assert.doesNotMatch(e.message + e.shown.join('\n'), new RegExp(secret.slice(6, 30)), bad);
  }
  // Without one argument to blame: the magic's `%`, as for an unknown magic.
  for (const bad of ['%var set onlyname', '   %nosuch 1']) {
    e = await failure(bad);
    assert.deepEqual([e.line, e.column], [1, at(bad, '%')], `${bad}: ${e.message}`);
  }
  // A cell magic's first line is placed the same way: the bad argument, else its `%%`.
  for (const [bad, word] of [
    ['%%job nightly writer --bogus\nPRINT 1;', '--bogus'],
    ['%%job nightly maybe\nPRINT 1;', '%%'],
    ['%%job nightly writer\n', '%%'],
    ['\n  %%nosuch x\nPRINT 1;', '%%'],
  ]) {
    e = await failure(bad);
    const line = bad.startsWith('\n') ? 2 : 1;
    assert.deepEqual([e.line, e.column], [line, at(bad, word, line)], `${bad}: ${e.message}`);
    // A magic the session does not know shows its name only: any of its words may be a secret.
    assert.equal(e.shown[0], bad.split('\n')[line - 1].replace('%%nosuch x', '%%nosuch *'));
    assert.match(e.statement ?? '', /^%%(job|nosuch)$/);
  }
});

test('a %%job cell with CRLF or CR line ends is read as with LF: its first line the magic, the rest the saved script', async () => {
  for (const [name, nl] of [
    ['lf', '\n'],
    ['crlf', '\r\n'],
    ['cr', '\r'],
  ]) {
    const { session: s, dir } = tempSession({}, 'magic-line-ends');
    const script = `PRINT 'a';${nl}PRINT 'b';${nl}`;
    const saved = await collect(s, `%%job nightly reader --save-sample${nl}${script}`);
    assert.equal(saved.filter((r) => r.kind === 'error').length, 0, `${name}: ${JSON.stringify(saved)}`);
    assert.equal(readFileSync(join(dir, 'ws', 'jobs', 'nightly', 'reader.sql'), 'utf8'), script, name);
    // An error in the magic's arguments is on its first line, at the argument.
    const [bad] = (await collect(s, `%%job nightly writer --bogus${nl}${script}`)).filter((r) => r.kind === 'error');
    assert.ok(bad?.kind === 'error', name);
    assert.deepEqual([bad.error.position?.line, bad.error.position?.column], [1, 22], name);
    assert.match(bad.error.message, /unknown option --bogus/, name);
    await s.close();
  }
});
