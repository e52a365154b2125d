import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { CallAnswer } from '../../runtime/webhook/ingest';
import { SQLCDC } from '../repl/harness';

/** A running `sqlcdc serve` the test started. */
export interface Serve {
  child: ChildProcess;
  /** The push URL it printed: http://127.0.0.1:PORT/job/push */
  url: string;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `sqlcdc serve --port 0 …` and resolves once it printed its `listening on` line. */
export function startServe(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Serve> {
  const base: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
  delete base.SQLCDC_HOME;
  const child = spawn(process.execPath, [SQLCDC, 'serve', '--port', '0', ...args], {
    cwd,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const m = /^listening on (\S+)$/m.exec(stdout);
      if (m) resolve({ child, url: m[1], stderr: () => stderr, stop: () => (child.kill('SIGTERM'), exited) });
    });
    void exited.then((code) => reject(new Error(`sqlcdc serve exited (${code}) before listening: ${stderr}`)));
  });
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON; the test names the kind it expects (RunAnswer, Refusal). */
  json: unknown;
}

/** The answer (C.6) of a call that ran and wrote its change log. */
export type RunAnswer = CallAnswer & { changeLog: string };

/** The answer of a refused call. */
export interface Refusal {
  error: string;
}

export interface Call {
  method?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string | Buffer;
  key?: string;
  agent?: Agent;
}

/** One HTTP call to the listener; the answer's body parsed as JSON when it is JSON. */
export function call(url: string, c: Call = {}): Promise<Reply> {
  const u = new URL(url);
  for (const [k, v] of Object.entries(c.query ?? {})) u.searchParams.set(k, v);
  const length: Record<string, string> =
    c.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(c.body)) };
  const headers: Record<string, string> = {
    ...(c.key ? { authorization: `Bearer ${c.key}` } : {}),
    ...length,
    ...c.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(u, { method: c.method ?? 'POST', headers, agent: c.agent }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(c.body);
  });
}

export type UrllibAnswer = { status: number; body: string } | { error: string };

/**
 * A POST of `size` bytes by Python's urllib (/usr/bin/python3), which writes the whole body before it
 * reads the answer: a server that answers early and closes leaves it a broken pipe, not the answer.
 */
export function urllibPost(
  url: string,
  size: number,
  framing: 'length' | 'chunked',
  headers: Record<string, string> = {},
): Promise<UrllibAnswer> {
  const script = join(__dirname, '..', '..', '..', 'test', 'helpers', 'py', 'urllib_post.py');
  return new Promise((resolve, reject) =>
    execFile(
      '/usr/bin/python3',
      [script, url, String(size), framing, JSON.stringify(headers)],
      { maxBuffer: 1024 * 1024 },
      (e, stdout, stderr) =>
        e ? reject(new Error(`${e.message}: ${stderr}`)) : resolve(JSON.parse(stdout) as UrllibAnswer),
    ),
  );
}
