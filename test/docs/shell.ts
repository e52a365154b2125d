import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQLCDC } from '../repl/harness';
import { tempDir } from '../helpers/session';

/**
 * The shell examples of the pages: `sh` runs them with a `sqlcdc` on the PATH that is this build,
 * and `curl` makes the call a curl command line describes with node's fetch (no curl needed, and no
 * address beyond the one the line names).
 */

/** A PATH whose `sqlcdc` is the built CLI. */
function binPath(): string {
  const bin = join(tempDir('docs-bin'), 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'sqlcdc'), `#!/bin/sh\nexec '${process.execPath}' '${SQLCDC}' "$@"\n`);
  chmodSync(join(bin, 'sqlcdc'), 0o755);
  return `${bin}:${process.env.PATH ?? ''}`;
}
let path: string | undefined;

export interface ShellOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a page's shell lines with `sh -e` in `cwd`; `env` adds variables. */
export function sh(cwd: string, code: string, env: Record<string, string> = {}): Promise<ShellOutcome> {
  path ??= binPath();
  const base: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', PATH: path };
  delete base.SQLCDC_HOME;
  return new Promise((resolve) => {
    execFile('sh', ['-ec', code], { cwd, env: { ...base, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The words of a shell line: quotes removed, `$VAR` and `${VAR}` expanded outside single quotes. */
export function shellWords(line: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  const word = /'([^']*)'|"((?:[^"\\]|\\.)*)"|([^\s'"]+)|(\s+)/g;
  let current: string | undefined;
  const expand = (text: string) =>
    text.replace(/\$\{?(\w+)\}?/g, (_, name: string) => {
      assert.ok(name in env, `the example's $${name} is known`);
      return env[name];
    });
  for (let m = word.exec(line); m; m = word.exec(line)) {
    if (m[4] !== undefined) {
      if (current !== undefined) words.push(current);
      current = undefined;
      continue;
    }
    const part = m[1] ?? expand((m[2] ?? m[3]).replace(/\\(.)/g, '$1'));
    current = (current ?? '') + part;
  }
  if (current !== undefined) words.push(current);
  return words;
}

export interface CurlAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * The call a curl line makes (-H, -d, --data-binary @- fed by `head -c N /dev/zero | tr '\0' 'x' |`,
 * -X), made with fetch. `-d` posts as curl does: form-encoded unless a header says otherwise.
 */
export async function curl(line: string, env: Record<string, string>): Promise<CurlAnswer> {
  const [pipe, command] = line.includes('| curl ')
    ? [line.slice(0, line.lastIndexOf('| curl ')), line.slice(line.lastIndexOf('| curl ') + 2)]
    : ['', line];
  const args = shellWords(command.replace(/\s+#.*$/, ''), env);
  assert.equal(args.shift(), 'curl');
  const headers: Record<string, string> = {};
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  while (args.length) {
    const a = args.shift()!;
    if (a === '-H') {
      const [name, ...value] = args.shift()!.split(':');
      headers[name.trim().toLowerCase()] = value.join(':').trim();
    } else if (a === '-X') method = args.shift();
    else if (a === '-d') body = args.shift();
    else if (a === '--data-binary' && args[0] === '@-') {
      args.shift();
      const size = /^head -c (\d+) \/dev\/zero \| tr '\\0' 'x'\s*$/.exec(pipe);
      assert.ok(size, `a stdin this test can make: ${pipe}`);
      body = 'x'.repeat(Number(size[1]));
    } else if (a.startsWith('-')) assert.fail(`a curl option this test knows: ${a}`);
    else url = a;
  }
  assert.ok(url, line);
  if (body !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded';
  const res = await fetch(url, { method: method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * A terminal transcript of a page: `$ cat FILE` and the lines after it make FILE, any other `$ …`
 * runs with `sh` and must print the lines after it (those marked `← stderr` on stderr, which a
 * terminal shows first; `$ echo $?` prints the exit code of the command before).
 */
export async function replayTranscript(cwd: string, transcript: string, where: string): Promise<void> {
  const steps = transcript.split(/^\$ /m).filter(Boolean);
  let last: ShellOutcome | undefined;
  for (const step of steps) {
    const [command, ...shown] = step.replace(/\n+$/, '').split('\n');
    const cat = /^cat (\S+)$/.exec(command);
    if (cat) {
      writeFileSync(join(cwd, cat[1]), `${shown.join('\n')}\n`);
      continue;
    }
    if (command === 'echo $?') {
      assert.deepEqual(shown, [String(last?.code)], `${where}: the exit code`);
      continue;
    }
    last = await sh(cwd, command);
    const lines = shown.map((line) => line.replace(/ +← stderr$/, ''));
    const printed = `${last.stderr}${last.stdout}`.replace(/\n$/, '').split('\n');
    assert.deepEqual(printed, lines, `${where}: $ ${command}`);
    for (const line of shown.filter((l) => / +← stderr$/.test(l)))
      assert.ok(last.stderr.includes(line.replace(/ +← stderr$/, '')), `${where}: on stderr: ${line}`);
  }
}
