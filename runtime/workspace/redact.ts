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
