import { isDeepStrictEqual } from 'node:util';
import { ScriptError } from '../errors';
import type { Result } from '../results';
import {
  decodeUserinfo,
  redactConnection,
  splitPassword,
  type Connection,
  type HttpAuth,
} from '../workspace/connections';
import type { Magic } from './magic';
import { ArgumentError, atMagicArgument, parseFlags, splitArgs, type FlagSpec } from './args';
import { listing } from './listing';
import { parseSize } from '../util/size';

const USAGE =
  '%connection add <name> <http(s) url> [--header "K: V"]… [--basic user:password | --bearer token | --apikey "Header: key"] ' +
  '[--insecure] [--ca file.pem] [--timeout seconds] [--max-answer 256mb]  |  %connection add <name> sqlite:<file> | sqlite::memory: | ' +
  'postgres://user:pass@host:port/db | ftp(s)://user:pass@host:port/ | s3://keyid:secret@bucket/prefix[?region=…&endpoint=…] | ' +
  'az://account:key@container/prefix[?endpoint=…] | az://account@container/prefix?sas=<token>  |  ' +
  '%connection add <name> --drive <folder>  |  ' +
  '%connection list  |  %connection remove <name>';

/** The connection kind each URL scheme makes. */
const SCHEMES: Record<string, Connection['kind']> = {
  'http:': 'http',
  'https:': 'http',
  'sqlite:': 'sqlite',
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'ftp:': 'ftp',
  'ftps:': 'ftp',
  's3:': 's3',
  'az:': 'az',
};

const FLAGS = {
  header: 'list',
  basic: 'value',
  bearer: 'value',
  apikey: 'value',
  insecure: 'switch',
  ca: 'value',
  timeout: 'value',
  'max-answer': 'value',
  drive: 'value',
  sqlite: 'value',
  postgres: 'value',
} as const satisfies FlagSpec;

/**
 * `a:b` of --basic, --apikey and --header; the text is not echoed: a header a connection adds is as
 * likely a key (`X-Api-Key k` without its colon) as --apikey's.
 */
function splitPair(text: string, sep: string, what: string): [string, string] {
  const i = text.indexOf(sep);
  if (i <= 0) throw new ArgumentError(`${what} must look like a${sep}b`, what);
  return [text.slice(0, i).trim(), text.slice(i + 1).trim()];
}

function parseConnection(words: string[]): Connection {
  const { positional, flags } = parseFlags(words, FLAGS, USAGE);
  const [name, url, ...extra] = positional;
  if (!name) throw new ScriptError(`a connection needs a name; usage: ${USAGE}`, 'semantic');
  // Not echoed: a blank in a password splits the URL, and what follows is likely the password's end.
  if (extra.length)
    throw new ScriptError(
      `connection '${name}': unexpected words after the URL (percent-encode blanks in a URL: %20); usage: ${USAGE}`,
      'semantic',
    );
  const one = (k: string) => flags.get(k)?.[0];
  const drive = one('drive');
  if (drive) return { name, kind: 'drive', root: drive };
  // --sqlite and --postgres are the older spellings of the URL forms.
  const target = url ?? (one('sqlite') !== undefined ? `sqlite:${one('sqlite')}` : one('postgres'));
  if (!target)
    throw new ScriptError(`connection '${name}' needs a URL (or --drive <folder>); usage: ${USAGE}`, 'semantic');
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(target)?.[0].toLowerCase();
  const kind = scheme && SCHEMES[scheme];
  if (!kind) {
    throw new ArgumentError(
      `'${scheme ?? maskUserinfo(target)}' is not a connection URL scheme (known: ${Object.keys(SCHEMES).join(' ')}); a folder is --drive <folder>`,
      target,
    );
  }
  if (kind === 'sqlite') {
    const file = target.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!file) throw new ArgumentError('sqlite: needs a database file (sqlite:shop.db) or sqlite::memory:', target);
    return { name, kind, file };
  }
  let parsed: URL;
  try {
    parsed = new URL(kind === 'postgres' ? withSocketHost(target) : target);
  } catch {
    throw new ArgumentError(`'${maskUserinfo(target)}' is not a valid URL`, target);
  }
  if (kind === 'postgres') return { name, kind, ...splitPassword(parsed.toString()) };
  if (kind === 'ftp')
    return {
      name,
      kind,
      ...splitPassword(parsed.toString()),
      ...(flags.has('insecure') ? { tls: { rejectUnauthorized: false } } : {}),
    };
  if (kind === 's3') return s3Connection(name, parsed);
  if (kind === 'az') return azureConnection(name, parsed);
  return httpConnection(name, parsed, flags);
}

/**
 * `az://ACCOUNT:KEY@container/folder?endpoint=…`, or `az://ACCOUNT@container/folder?sas=<token>`: the
 * key or the token is the secret, kept apart; `sas` stays in the URL, empty, to say which it is.
 */
function azureConnection(name: string, parsed: URL): Connection {
  if (!parsed.hostname || !parsed.username)
    throw new ScriptError(
      `connection '${name}': an az:// URL names the storage account and the container (az://ACCOUNT:KEY@container/folder)`,
      'semantic',
    );
  const sas = parsed.searchParams.get('sas');
  if (sas !== null && parsed.password)
    throw new ScriptError(
      `connection '${name}': an az:// URL holds an account key or a SAS token, not both`,
      'semantic',
    );
  if (sas === null && !parsed.password)
    throw new ScriptError(
      `connection '${name}': an az:// URL needs the account key (az://ACCOUNT:KEY@…) or a SAS token (?sas=…)`,
      'semantic',
    );
  checkEndpoint(name, parsed);
  if (sas === null) return { name, kind: 'az', ...splitPassword(parsed.toString()) };
  // Cut from the text, not set through searchParams, which would percent-encode the other parameters.
  return { name, kind: 'az', url: parsed.toString().replace(/([?&]sas=)[^&#]*/, '$1'), password: sas };
}

/** An `endpoint` parameter (S3-compatible stores, Azurite, sovereign clouds) is an http(s) URL. */
function checkEndpoint(name: string, parsed: URL): void {
  const endpoint = parsed.searchParams.get('endpoint');
  if (endpoint !== null && !/^https?:\/\/[^/]/i.test(endpoint))
    throw new ScriptError(`connection '${name}': endpoint must be an http(s):// URL, got '${endpoint}'`, 'semantic');
}

/** `s3://KEY_ID:SECRET@bucket/prefix?region=…&endpoint=…`; neither key id nor secret: the AWS SDK's own credentials. */
function s3Connection(name: string, parsed: URL): Connection {
  if (!parsed.hostname)
    throw new ScriptError(
      `connection '${name}': an s3:// URL names its bucket as its host (s3://bucket/prefix)`,
      'semantic',
    );
  if (Boolean(parsed.username) !== Boolean(parsed.password))
    throw new ScriptError(
      `connection '${name}': an s3:// URL holds both the access key id and the secret (s3://KEY_ID:SECRET@bucket/…), or neither`,
      'semantic',
    );
  checkEndpoint(name, parsed);
  return { name, kind: 's3', ...splitPassword(parsed.toString()) };
}

/**
 * libpq's socket form `postgres://user@/db?host=/run/postgresql` has no host, which a URL with a user
 * cannot have; pg takes the host from the `host` parameter then, so a placeholder host changes nothing.
 */
function withSocketHost(target: string): string {
  return /^[a-z]+:\/\/[^/?#]*@\/.*[?&]host=/i.test(target) ? target.replace('@/', '@localhost/') : target;
}

/**
 * A URL as text with its userinfo cut, for an error about a URL that does not parse or has no known
 * scheme: up to the last `@` (from the start when no `//` says where the userinfo opens, `ht!tp://` or
 * `user:pw@host`), since a password that broke the URL may hold `/`, `?` or `#`; without one, the host
 * and port, where a user:password whose `@` went missing would stand.
 */
function maskUserinfo(text: string): string {
  return text.includes('@')
    ? text.replace(/^(.*?\/\/)?.*@/s, (_m, head?: string) => `${head ?? ''}****@`)
    : text.replace(/\/\/[^/?#]*/, '//****');
}

function httpConnection(name: string, parsed: URL, flags: Map<string, string[]>): Connection {
  const one = (k: string) => flags.get(k)?.[0];
  let auth: HttpAuth | undefined;
  const basic = one('basic');
  const bearer = one('bearer');
  const apikey = one('apikey');
  const given = (['basic', 'bearer', 'apikey'] as const).filter((k) => one(k)).map((k) => `--${k}`);
  // Placed at the second way of signing in, the one that conflicts (a flag is never a secret).
  if (given.length > 1) throw new ArgumentError('choose one of --basic, --bearer, --apikey', given[1]);
  // A password in the URL is the same as --basic: kept apart from the URL, sealed like it.
  if (parsed.password && given.length)
    throw new ArgumentError(
      `a password in the URL is basic authentication: give it there or with ${given[0]}, not both`,
      given[0],
    );
  if (parsed.username || parsed.password) {
    auth = { type: 'basic', user: decodeUserinfo(parsed.username), password: decodeUserinfo(parsed.password) };
    parsed.username = '';
    parsed.password = '';
  }
  if (basic) {
    const [user, password] = splitPair(basic, ':', '--basic');
    auth = { type: 'basic', user, password };
  } else if (bearer) auth = { type: 'bearer', token: bearer };
  else if (apikey) {
    const [header, key] = splitPair(apikey, ':', '--apikey');
    auth = { type: 'apikey', header, key };
  }
  const headers = Object.fromEntries((flags.get('header') ?? []).map((h) => splitPair(h, ':', '--header')));
  const timeoutText = one('timeout');
  const timeout = timeoutText === undefined ? undefined : Number(timeoutText);
  if (timeout !== undefined && !(timeout > 0))
    throw new ArgumentError(`--timeout takes seconds > 0, got '${timeoutText}'`, timeoutText!);
  const maxAnswerText = one('max-answer');
  const maxAnswer = maxAnswerText === undefined ? undefined : parseSize(maxAnswerText);
  if (maxAnswer === 0 || (maxAnswerText !== undefined && maxAnswer === undefined))
    throw new ArgumentError(
      `--max-answer takes a size like 10mb, 1gb, 512kb or a number of bytes, got '${maxAnswerText}'`,
      maxAnswerText!,
    );
  const insecure = flags.has('insecure');
  const ca = one('ca');
  return {
    name,
    kind: 'http',
    baseUrl: parsed.toString(),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(auth ? { auth } : {}),
    ...(insecure || ca ? { tls: { ...(insecure ? { rejectUnauthorized: false } : {}), ...(ca ? { ca } : {}) } } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(maxAnswer !== undefined ? { maxAnswer } : {}),
  };
}

function describe(c: Connection): string {
  const r = redactConnection(c);
  delete r.name;
  delete r.kind;
  return JSON.stringify(r);
}

export const connectionMagic: Magic = {
  name: 'connection',
  usage: '%connection add|list|remove …',
  description: 'manages named connections kept in the workspace (secrets are never shown)',
  words: ['add', 'list', 'remove'],
  options: { add: FLAGS },
  // The URL may hold a password or key (and words after it, when a blank split it), and so may these options.
  secretArgs: { options: ['header', 'basic', 'bearer', 'apikey', 'postgres'], positionalFrom: { add: 1 } },
  run(session, args): Result[] {
    const words = splitArgs(args);
    const subWord = words.shift() ?? 'list';
    const sub = subWord.toLowerCase();
    const store = session.connections;
    switch (sub) {
      case 'list':
        return [
          listing(
            ['name', 'kind', 'settings'],
            store.list().map((c) => [c.name, c.kind, describe(c)]),
            'Connections',
          ),
        ];
      case 'add': {
        const c = parseConnection(words);
        const existing = store.find(c.name);
        // A script's leading %connection add runs at every run: the same definition again changes nothing.
        if (existing && isDeepStrictEqual(existing, c))
          return [{ kind: 'message', text: `connection [${c.name}] unchanged (${c.kind})` }];
        store.add(c);
        return [{ kind: 'message', text: `connection [${c.name}] ${existing ? 'replaced' : 'added'} (${c.kind})` }];
      }
      case 'remove':
      case 'rm': {
        const name = words.join(' ');
        if (!name) throw new ScriptError(`which connection? usage: %connection remove <name>`, 'semantic');
        if (!store.remove(name)) atMagicArgument(name, () => store.get(name));
        return [{ kind: 'message', text: `connection [${name}] removed` }];
      }
      default:
        throw new ArgumentError(`unknown subcommand '${sub}'; usage: ${USAGE}`, subWord);
    }
  },
};
