import { ScriptError } from '../errors';
import type { Result } from '../results';
import type { SessionListener } from '../webhook/session-listener';
import { ArgumentError, atMagicArgument, parseFlags, splitArgs, type FlagSpec } from './args';
import { listing } from './listing';
import type { Magic, MagicHost } from './magic';
import { counted } from '../util/words';

const USAGE =
  '%webhook start [--port N] [--job NAME] [--no-auth] | take [N] | status | log | wait [--timeout s] | stop';

const OPTIONS = {
  start: { port: 'value', job: 'value', 'no-auth': 'switch' },
  wait: { timeout: 'value' },
} as const satisfies Record<string, FlagSpec>;

/**
 * The listener of each session (one at a time), also in the session's resources, which close it. Once
 * stopped it stays here with its inbox, which take, log and status still read, until the next start.
 */
const listeners = new WeakMap<MagicHost, SessionListener>();

/** The running or stopped listener, for what reads its inbox. */
function inbox(host: MagicHost): SessionListener {
  const l = listeners.get(host);
  if (!l) throw new ScriptError('no webhook listener is running (%webhook start)', 'semantic');
  return l;
}

function current(host: MagicHost): SessionListener {
  const l = inbox(host);
  if (l.stopped)
    throw new ScriptError(
      `the webhook listener is stopped (%webhook start starts another; until then take, log and status read the ${counted(l.calls.length, 'call')} it took)`,
      'semantic',
    );
  return l;
}

async function start(host: MagicHost, words: string[], origin: string | undefined): Promise<Result[]> {
  if (listeners.get(host)?.stopped === false)
    throw new ScriptError(
      `a webhook listener is running already: ${current(host).url} (%webhook stop first)`,
      'semantic',
    );
  const { positional, flags } = parseFlags(words, OPTIONS.start, USAGE);
  if (positional.length > 0) throw new ArgumentError(`unexpected '${positional[0]}'; usage: ${USAGE}`, positional[0]);
  const port = Number(flags.get('port')?.[0] ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ArgumentError(`--port must be 0..65535, not '${flags.get('port')?.[0]}'`, flags.get('port')![0]);
  const job = flags.get('job')?.[0];
  const options = { port, job, auth: !flags.has('no-auth'), origin };
  // The listener (HTTP server, ingest, job runs: ~150 ms of modules) loads with the first %webhook start.
  const { SessionListener } = require('../webhook/session-listener') as typeof import('../webhook/session-listener');
  // A job that does not exist or serves no webhooks is refused before anything listens: shown at its name.
  const listener = await (job === undefined
    ? SessionListener.start(host, options)
    : atMagicArgument(job, () => SessionListener.start(host, options)));
  host.resources.add(listener);
  listeners.set(host, listener);
  // Statements of later cells post to it by these names (PUSH INTO HTTP … (POST {{@webhookurl}})).
  host.variables.set('webhookurl', listener.url);
  if (listener.key) host.variables.set('webhookkey', listener.key);
  const lines = [`webhook listening: ${listener.url} (@webhookurl)`];
  // The key is the session's own, shown once to the user who started the listener.
  if (listener.key) lines.push(`access key (send as Authorization: Bearer <key>; @webhookkey): ${listener.key}`);
  if (listener.options.job) lines.push(`each call runs through job ${listener.options.job}'s writer`);
  return [{ kind: 'message', text: lines.join('\n') }];
}

function take(host: MagicHost, words: string[]): Result[] {
  const l = inbox(host);
  if (l.calls.length === 0) throw new ScriptError('no webhook call has arrived yet (%webhook wait)', 'runtime');
  const n = words[0] === undefined ? l.calls.length : Number(words[0]);
  if (!Number.isInteger(n) || !l.calls[n - 1])
    throw new ArgumentError(`%webhook take N: N is 1 to ${l.calls.length}, not '${words[0]}'`, words[0]);
  const dataset = l.payload(n);
  host.setDataset(dataset);
  return [{ kind: 'table', dataset, limit: host.displayLimit, title: `webhook call ${n} is the pipeline dataset` }];
}

async function wait(host: MagicHost, words: string[], signal: AbortSignal | undefined): Promise<Result[]> {
  const l = current(host);
  const { flags } = parseFlags(words, OPTIONS.wait, USAGE);
  const timeout = flags.has('timeout') ? Number(flags.get('timeout')![0]) : undefined;
  if (timeout !== undefined && !(timeout > 0))
    throw new ArgumentError(`--timeout is seconds > 0, not '${flags.get('timeout')![0]}'`, flags.get('timeout')![0]);
  const call = await l.next(timeout === undefined ? undefined : timeout * 1000, signal);
  return [
    {
      kind: 'message',
      text: `webhook call ${call.n} arrived: ${counted(call.rows, 'row')} (%webhook take ${call.n})`,
    },
  ];
}

/**
 * %webhook: a listener inside the session for live payloads (docs/webhook.md, "In a notebook"). Arrivals
 * show under the cell that started the listener, as ipykernel shows output of background threads.
 */
export const webhookMagic: Magic = {
  name: 'webhook',
  usage: USAGE,
  description: 'a webhook listener in the session: calls arrive as datasets under the starting cell',
  words: ['start', 'take', 'status', 'log', 'wait', 'stop'],
  options: OPTIONS,
  async run(host, args, line) {
    const [action, ...words] = splitArgs(args);
    switch (action) {
      case 'start':
        return start(host, words, line.origin);
      case 'take':
        return take(host, words);
      case 'wait':
        return wait(host, words, line.signal);
      case 'status': {
        const l = inbox(host);
        const last = l.calls.at(-1);
        return [
          {
            kind: 'message',
            text: `url: ${l.url}${l.stopped ? ' (stopped)' : ''}\ncalls received: ${l.calls.length}\nlast call: ${last ? `${last.at.toISOString()} (${last.method}, ${counted(last.rows, 'row')}, ${last.status})` : 'none'}\ninbox: ${l.inbox()}`,
          },
        ];
      }
      case 'log':
        return [
          listing(
            ['call', 'at', 'method', 'rows', 'status'],
            inbox(host).calls.map((c) => [c.n, c.at.toISOString(), c.method, c.rows, c.status]),
            'webhook calls',
          ),
        ];
      case 'stop': {
        const l = current(host);
        host.variables.delete('webhookurl');
        host.variables.delete('webhookkey');
        await host.resources.release(l);
        return [{ kind: 'message', text: `webhook listener stopped after ${counted(l.calls.length, 'call')}` }];
      }
      default:
        if (action === undefined) throw new ScriptError(`usage: ${USAGE}`, 'semantic');
        throw new ArgumentError(`unknown subcommand '${action}'; usage: ${USAGE}`, action);
    }
  },
};
