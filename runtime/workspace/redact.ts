/**
 * How secrets look wherever something is shown (listings, errors, inspect, logs, trace rows, change log
 * headers): one place, so no printer forgets one.
 */
export const MASK = '****';

/** A URL with any password replaced: `postgres://app:****@db:5432/shop`. Text that is not a URL is returned as it is. */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (!url.password) return text;
  url.password = MASK;
  return url.toString().replace(encodeURIComponent(MASK), MASK);
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
    .replace(/(--(?:bearer|basic)\s+)("[^"]*"|'[^']*'|\S+)/gi, `$1${MASK}`)
    .replace(
      /(--(?:apikey|header)\s+)(["']?)([^:"']+):\s*([^"']*)\2/gi,
      (_m, flag: string, quote: string, name: string) => `${flag}${quote}${name}: ${MASK}${quote}`,
    );
}
