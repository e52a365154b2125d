/**
 * How secrets look wherever something is shown (listings, errors, inspect, logs, trace rows, change log
 * headers): one place, so no printer forgets one.
 */
export const MASK = '****';

/** Query parameters whose names suggest a secret (api_key, token, signature…): an API key often travels in the URL. */
const SECRET_PARAM = /key|token|secret|password|passwd|pwd|sig|auth|code|credential/i;

/** Masks, in place, the values of `url`'s query parameters named like a secret; whether it masked any. */
export function maskSecretParams(url: URL): boolean {
  let masked = false;
  for (const [name] of [...url.searchParams])
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, MASK);
      masked = true;
    }
  return masked;
}

/** `url` as text, the mask unescaped: `?api_key=****`, `app:****@`. */
const shownUrl = (url: URL) => url.toString().replace(/%2A%2A%2A%2A/gi, MASK);

/**
 * A URL with any password and secret-named query values replaced: `postgres://app:****@db:5432/shop`,
 * `https://h/v1?api_key=****`. Text that is not a URL, or holds no secret, is returned as it is.
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  const hadPassword = url.password !== '';
  if (hadPassword) url.password = MASK;
  return maskSecretParams(url) || hadPassword ? shownUrl(url) : text;
}

/** Every URL inside a text (an error message, a log line) with its password replaced. */
export function redactUrlsIn(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, (url) => redactUrl(url));
}

/**
 * A `%connection add …` line with its secrets masked: the values of --bearer, --basic, --apikey and
 * --header, and a URL's password. For showing scripts back (`sqlcdc job show`); other lines are kept.
 */
export function redactMagicLine(line: string): string {
  if (!/^\s*%connection\s+add\b/i.test(line)) return line;
  return redactUrlsIn(line)
    .replace(/(--(?:bearer|basic)(?:\s+|=))("[^"]*"|'[^']*'|\S+)/gi, `$1${MASK}`)
    .replace(
      /(--(?:apikey|header)(?:\s+|=))(["']?)([^:"']+):\s*([^"']*)\2/gi,
      (_m, flag: string, quote: string, name: string) => `${flag}${quote}${name}: ${MASK}${quote}`,
    );
}
