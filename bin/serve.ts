import { readFileSync } from 'node:fs';
import { EXIT } from './constants';
import { parseCommandLine, UsageError, type CommandGroup } from './subcommand';
import { AccessKeys, JobStore } from '../runtime/admin';
import { errorInFile, sessionFolders, toScriptError } from '../runtime/support';
import { IdempotencyStore, Ingest, isLoopback, parseSize, READ_TIMEOUT_MS, startListener } from '../runtime/serve';
import { openSession } from './interpreter';

function sizeOfMaxBody(text: string): number {
  const size = parseSize(text);
  if (size === undefined)
    throw new UsageError(`--max-body must be a size like 10mb, 512kb or a number of bytes, not '${text}'`);
  return size;
}

/** `--read-timeout 60` or `60s`, `0.5s`: seconds, more than none. */
function readTimeoutOf(text: string): number {
  const m = /^(\d+(?:\.\d+)?)s?$/i.exec(text.trim());
  const ms = m ? Math.round(Number(m[1]) * 1000) : 0;
  if (ms < 1) throw new UsageError(`--read-timeout must be a number of seconds like 60 or 60s, not '${text}'`);
  return ms;
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the TLS ${what} ${file}: ${(e as Error).message}`);
  }
}

/**
 * `sqlcdc serve`: the production webhook listener over every job of the workspace (docs/webhook.md).
 * Prints `listening on …` once ready, runs until SIGINT or SIGTERM, then finishes the calls under way.
 */
async function serve(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(args, {
    workspace: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'max-body': { type: 'string' },
    'read-timeout': { type: 'string' },
    'no-auth': { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got '${positionals[0]}'`);
  const host = values.host ?? '127.0.0.1';
  const portText = values.port ?? '8080';
  const port = Number(portText);
  // Number('') is 0, a free port: only digits are a port.
  if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`--port must be 0..65535, not '${values.port}'`);
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined))
    throw new UsageError('--tls-cert and --tls-key go together');
  if (values['no-auth'] && !isLoopback(host))
    throw new UsageError(`--no-auth is only allowed on a loopback address (127.0.0.1, ::1, localhost), not ${host}`);
  const tls =
    values['tls-cert'] !== undefined
      ? { cert: readPem(values['tls-cert'], 'certificate'), key: readPem(values['tls-key']!, 'key') }
      : undefined;
  const maxBody = sizeOfMaxBody(values['max-body'] ?? '10mb');
  const readTimeoutMs = values['read-timeout'] === undefined ? READ_TIMEOUT_MS : readTimeoutOf(values['read-timeout']);

  const { workspace } = sessionFolders({ workspace: values.workspace });
  const store = new JobStore(workspace, openSession);
  const keys = values['no-auth'] ? undefined : new AccessKeys(workspace);
  if (keys && keys.list().length === 0) {
    // Decision C.6: with no key configured, one is made and shown once, here, to the operator.
    const { key, stored } = keys.create('serve');
    process.stderr.write(
      `no access key was configured: created key '${stored.name}' (shown once; callers send Authorization: Bearer <key>)\n${key}\n`,
    );
  }
  // Triggered runs print what `job run` prints; the calls themselves print nothing (spec §4.1 rule 5).
  const ingest = new Ingest(store, (r, from) => {
    if (r.kind === 'error')
      process.stderr.write(
        from
          ? `triggered job ${from.job} failed: ${errorInFile(store.scriptFile(from.job, from.script), r.error)}\n`
          : `triggered job failed: ${r.error.message}\n`,
      );
  });
  const idempotency = await IdempotencyStore.open(workspace);
  let listener;
  try {
    listener = await startListener({
      host,
      port,
      tls,
      maxBody,
      readTimeoutMs,
      keys,
      store,
      ingest,
      idempotency,
    });
  } catch (e) {
    process.stderr.write(`sqlcdc: cannot listen on ${host}:${port}: ${toScriptError(e).message}\n`);
    return EXIT.scriptError;
  }
  // Ready means ready to be stopped too: a supervisor (or a test) may send SIGTERM as soon as it reads
  // the line, before a handler set after it would be in place, and Node's default would kill the
  // server without closing its stores.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(`listening on ${listener.url}\n`);
  await stopped;
  await listener.close();
  await ingest.close();
  await idempotency.close();
  return EXIT.ok;
}

export const serveCommand: CommandGroup = {
  usage:
    '  sqlcdc serve [--host 127.0.0.1] [--port 8080|0] [--tls-cert F --tls-key F] [--max-body 10mb] [--read-timeout 60s] [--no-auth] [--workspace DIR]',
  run: serve,
};
