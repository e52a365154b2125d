/**
 * How secrets look wherever something is shown (listings, errors, inspect, logs, trace rows, change log
 * headers): one place, so no printer forgets one.
 */
export const MASK = '****';

/**
 * Query parameters whose names suggest a secret: `api_key`, `token`, `sig`, `code`, `pass`, `session`, PostgreSQL's
 * `password`, an az:// URL's `sas` (a whole SAS token, percent-encoded)…
 */
const SECRET_PARAM =
  /key|token|secret|passw|passphrase|(?:^|[_-])pass(?:$|[_-])|pwd|sig|auth|code|credential|session|^sas$/i;

/**
 * A URL with its password and the values of query parameters named like secrets replaced:
 * `postgres://app:****@db:5432/shop`, `https://h/hook?code=****`. An http(s) URL's user without a
 * password is a token (`https://ghp_…@github.com/…`, as GitHub and others document it), masked too;
 * a database's user name is not. Text that is not a URL is returned as it is.
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  const secretParams = [...url.searchParams.keys()].filter((name) => SECRET_PARAM.test(name));
  const tokenUser = !url.password && url.username !== '' && (url.protocol === 'https:' || url.protocol === 'http:');
  if (!url.password && !tokenUser && secretParams.length === 0) return text;
  // Masked in the text as written: serializing the URL again would re-encode the rest of it (a script
  // line shown under an error would no longer read as written).
  const at = text.indexOf('?');
  const head = at < 0 ? text : text.slice(0, at);
  const shownHead = url.password
    ? head.replace(USER_INFO, `$1${MASK}@`)
    : tokenUser
      ? head.replace(TOKEN_USER, `$1${MASK}@`)
      : head;
  if ((url.password || tokenUser) && shownHead === head) {
    if (url.password) url.password = MASK;
    else url.username = MASK;
    for (const name of secretParams) url.searchParams.set(name, MASK);
    return url.toString().replace(/%2A%2A%2A%2A/gi, MASK);
  }
  if (at < 0) return shownHead;
  const query = text
    .slice(at + 1)
    // A value ends at a `)` too: a script writes the URL inside `( … )`, whose end must stay shown.
    .replace(/(^|&)([^=&#]*)=([^&#)]*)/g, (pair, sep: string, name: string, value: string, at: number, all: string) =>
      SECRET_PARAM.test(decodeName(name)) && !givenByFunction(value, all, at + pair.length)
        ? `${sep}${name}=${MASK}`
        : pair,
    );
  return `${shownHead}?${query}`;
}

/**
 * `text` with every occurrence of `values` as `****`: the secrets a call carried (runtime/http/build.ts),
 * which a server may echo in its answer whatever the header's name or the answer's format (a 401 page
 * listing the request's headers). The longest first, so that a value holding another is masked whole;
 * each as sent and percent-encoded.
 */
export function maskValues(text: string, values: readonly string[]): string {
  const forms = values.flatMap((v) => [v, encodeURIComponent(v)]).filter((v) => v !== '');
  let shown = text;
  for (const value of [...new Set(forms)].sort((a, b) => b.length - a.length)) shown = shown.split(value).join(MASK);
  return shown;
}

/**
 * The values of encrypted variables this process opened (`#trygetvar`): a statement may send one where
 * nothing marks it as a secret (a header of any name, a payload, SQL), and a server or a database may
 * quote it back in an error. One set for the process, as a value is as secret in any session. A value
 * under 4 characters is left out: it would mask digits and words in every message, and protects nothing.
 */
const opened = new Set<string>();

/** `value`, an encrypted variable's, noted as a secret for `maskOpenedSecrets`. */
export function openedSecret(value: string): string {
  if (value.length >= 4) opened.add(value);
  return value;
}

/** `text` (an error's message) with every encrypted variable's value this process opened as `****`. */
export function maskOpenedSecrets(text: string): string {
  return opened.size === 0 ? text : maskValues(text, [...opened]);
}

/**
 * The secrets sqlcdc makes and shows once, to be copied (a job's signing secret `whsec_…`, a listener's
 * access key `sqk_…`): `text` with each as `whsec_****`, `sqk_****`, for what may print output again
 * (a debug log of the protocol's messages).
 */
export function maskIssuedSecrets(text: string): string {
  return text.replace(/\b(whsec_|sqk_)[A-Za-z0-9+/_-]+=*/g, `$1${MASK}`);
}

/** `scheme://user:` and the password up to the authority's last `@`. */
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^/?#]*@/i;
/** `http(s)://` and a user without a password, up to the authority's last `@`. */
const TOKEN_USER = /^(https?:\/\/)[^:/?#]*@/i;

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi;
/**
 * A `?name=value` or `&name=value` pair outside a URL that URL_IN_TEXT took whole: the rest of a URL
 * written with a blank in it (`GET http://h/a b?api_key=K`), which a script line shows as written.
 */
const QUERY_PAIR_IN_TEXT = /([?&])([^=&#\s'"<>?]+)=([^&#\s'"<>)]*)/g;

/**
 * Headers whose values are secrets wherever they are written: a trace's rows, and HEADERS '…' in a
 * script shown back. Their names, not their values, are shown. Any `…-key`/`…key` is one (X-API-Key,
 * Azure's x-functions-key and Ocp-Apim-Subscription-Key, Cloudflare's X-Auth-Key), but
 * Idempotency-Key, which tells calls apart, and a JSON `"key"` naming the header (`{"key": "X-Api-Key",
 * "value": …}`).
 */
export const SECRET_HEADER =
  /authorization|(?<!idempotency)[-_]key\b|[a-z]key\b|token|secret|password|cookie|signature|credential/i;

/** The text inside a JSON string, and a JSON string with its quotes. */
const JSON_TEXT = String.raw`(?:[^"\\]|\\.)*`;
const JSON_STRING = `"${JSON_TEXT}"`;
/**
 * A `"name": "value"` pair, and a `"key": "name", "value": "value"` object, in JSON text (a HEADERS
 * '…' in a script); the groups: what comes before the value, the name, the value's text.
 */
const HEADER_PAIRS = [
  new RegExp(String.raw`((${JSON_STRING})\s*:\s*")(${JSON_TEXT})"`, 'g'),
  new RegExp(String.raw`("(?:key|name)"\s*:\s*(${JSON_STRING})\s*,\s*"value"\s*:\s*")(${JSON_TEXT})"`, 'gi'),
];

/**
 * The value of `CREDENTIALS '…'` (TRACE … STAGE ON, spec 5.5: a secret whatever it looks like), up to
 * its closing quote or the end of the line; `''` inside it is a quote. The groups as HEADER_PAIRS'.
 */
const CREDENTIALS_IN_TEXT = /(\b(CREDENTIALS)\s+')((?:[^'\n]|'')*)(?='|$)/gim;

/**
 * Whether a query value that ends at `end` of `text` is empty because a script's function gives it
 * (`?api_key=#trygetvar(k)`, which URLs read as a fragment): there is nothing to hide, and `****` before
 * the function would read as if it were part of the key. An empty value otherwise (a stored
 * connection's `sas=`, its token sealed apart) is masked, saying a secret goes there.
 */
function givenByFunction(value: string, text: string, end: number): boolean {
  return value === '' && text[end] === '#';
}

/**
 * `text` with every URL redacted, every other secret-named query pair, the JSON values of
 * secret-named headers and every CREDENTIALS value masked, and `column` (1-based) moved by what the
 * masks changed before it.
 */
function redactText(text: string, column: number): { text: string; column: number } {
  let at = column;
  let shown = text.replace(URL_IN_TEXT, (url: string, offset: number) => {
    const masked = redactUrl(url);
    if (offset + url.length < column) at += masked.length - url.length;
    return masked;
  });
  // Each pass's offsets are in the text the passes before it made, where the column is `at`.
  const mask = (re: RegExp, secret: (name: string) => boolean, join: (head: string, name: string) => string) => {
    const before = at;
    shown = shown.replace(re, (whole: string, head: string, name: string, value: string, offset: number) => {
      if (!secret(name) || value === MASK || givenByFunction(value, shown, offset + whole.length)) return whole;
      if (offset + whole.length < before) at += MASK.length - value.length;
      return join(head, name);
    });
  };
  mask(
    QUERY_PAIR_IN_TEXT,
    (name) => SECRET_PARAM.test(decodeName(name)),
    (sep, name) => `${sep}${name}=${MASK}`,
  );
  for (const re of HEADER_PAIRS)
    mask(
      re,
      (name) => SECRET_HEADER.test(name),
      (head) => `${head}${MASK}"`,
    );
  mask(
    CREDENTIALS_IN_TEXT,
    () => true,
    (head) => `${head}${MASK}`,
  );
  return { text: shown, column: at };
}

/** Every URL inside a text (an error message, a log line) with its password replaced, CREDENTIALS values masked. */
export function redactUrlsIn(text: string): string {
  return redactText(text, 0).text;
}

/**
 * A line of a script shown back under an error, its URLs and CREDENTIALS redacted, and the error's `column` (1-based)
 * moved by what the masks changed before it, so that a caret stays under what it points at. `lineBefore`
 * (the script's last non-blank line before it) ending with CREDENTIALS means the value may open this line.
 */
export function redactUrlsAt(line: string, column: number, lineBefore = ''): { line: string; column: number } {
  const open = /\bCREDENTIALS\s*$/i.test(lineBefore) ? 'CREDENTIALS ' : '';
  const { text, column: moved } = redactText(open + line, column + open.length);
  return { line: text.slice(open.length), column: moved - open.length };
}

/**
 * `text` (a cell, a script) with what `redactUrlsAt` masks in each line — a URL's password, a
 * secret-named query value or header value, a CREDENTIALS value — replaced by as many `*`
 * (`http://u:*****@h`), so that positions in it still hold: a cell echoed to every client, an
 * error's source. A line whose masked form does not align with it (a URL the parser wrote again) is
 * masked whole.
 */
export function maskKeepingWidth(text: string): string {
  let before = '';
  return text
    .split('\n')
    .map((line) => {
      const shown = keepingWidth(line, before);
      if (line.trim() !== '') before = line;
      return shown;
    })
    .join('\n');
}

function keepingWidth(line: string, lineBefore: string): string {
  const masked = redactUrlsAt(line, 1, lineBefore).line;
  if (masked === line) return line;
  // The masked line is the line with some values replaced by MASK: what each MASK stands for is found
  // by matching the line against the masked one, each MASK a lazy group.
  const kept = masked.split(MASK);
  const literal = kept.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const values = new RegExp(`^${literal.join('(.*?)')}$`, 's').exec(line);
  if (!values) return line.replace(/\S/g, '*');
  return kept.reduce((out, part, i) => out + '*'.repeat(i === 0 ? 0 : values[i].length) + part, '');
}

/**
 * A line of a script with its secrets masked, for showing scripts back (`sqlcdc job show`): a URL's
 * password and secret-named query values and CREDENTIALS values anywhere; in a `%connection add …`
 * line the values of --bearer, --basic, --apikey and --header; the value of `%var set --encrypted`;
 * a `%job … --signing-secret whsec_…`; and a secret sqlcdc issues anywhere (`whsec_…` after a misspelt
 * `--signng-secret`, an `sqk_…` key in a header), its form being enough to know it.
 */
export function redactScriptLine(line: string): string {
  const shown = maskIssuedSecrets(redactUrlsIn(line));
  if (/^\s*%connection\s+add\b/i.test(line))
    return shown
      .replace(/(--(?:bearer|basic)(?:\s+|=))("[^"]*"|'[^']*'|\S+)/gi, `$1${MASK}`)
      .replace(
        /(--(?:apikey|header)(?:\s+|=))(["']?)([^:"']+):\s*([^"']*)\2/gi,
        (_m, flag: string, quote: string, name: string) => `${flag}${quote}${name}: ${MASK}${quote}`,
      );
  if (/^\s*%var\s+set\b.*\s--encrypted\b/i.test(line)) return encryptedVariable(shown);
  if (/^\s*%%?job\b/i.test(line)) return shown.replace(/(--signing-secret(?:\s+|=))whsec_\S*/gi, `$1${MASK}`);
  return shown;
}

/** `%var set [--encrypted] NAME VALUE` with every word after the name but the flag masked. */
function encryptedVariable(line: string): string {
  const [, head, rest] = /^(\s*%var\s+set\b)(.*)$/is.exec(line)!;
  let named = false;
  return (
    head +
    rest.replace(/"[^"]*"|'[^']*'|\S+/g, (word) => {
      if (word.startsWith('--')) return word;
      if (named) return MASK;
      named = true;
      return word;
    })
  );
}
