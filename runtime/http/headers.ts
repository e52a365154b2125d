import { ScriptError, type Position } from '../errors';
import type { HttpAuth } from '../workspace/connections';

/**
 * HEADERS text → header pairs. Accepted: a JSON array of one-pair objects
 * ('[{"x-api-key":"abc"}]'), of key/value objects ('[{"key":"X","value":"Y"}]'), or one object
 * ('{"X":"Y"}'). Values are never echoed in errors: they often hold secrets.
 */
export function parseHeaders(text: string, pos?: Position): Record<string, string> {
  const fail = (why: string): never => {
    throw new ScriptError(
      `HEADERS ${why}; expected a JSON array of key/value objects, e.g. '[{"x-api-key":"abc"}]'`,
      'runtime',
      pos,
    );
  };
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('is not valid JSON');
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const out: Record<string, string> = {};
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) fail('holds something other than objects');
    const o = item as Record<string, unknown>;
    const keys = Object.keys(o);
    const lower = keys.map((k) => k.toLowerCase());
    const keyAt = lower.indexOf('key') >= 0 ? lower.indexOf('key') : lower.indexOf('name');
    if (keys.length === 2 && keyAt >= 0 && lower.includes('value')) {
      out[String(o[keys[keyAt]])] = scalar(o[keys[lower.indexOf('value')]], fail);
    } else {
      for (const k of keys) out[k] = scalar(o[k], fail);
    }
  }
  return out;
}

function scalar(v: unknown, fail: (why: string) => never): string {
  if (v === null || typeof v === 'object') fail('has a value that is not text or a number');
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- not an object: a JSON string, number or boolean
  return String(v);
}

/** The header a connection's auth adds. */
export function authHeader(auth: HttpAuth): [string, string] {
  switch (auth.type) {
    case 'basic':
      return ['authorization', `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`];
    case 'bearer':
      return ['authorization', `Bearer ${auth.token}`];
    case 'apikey':
      return [auth.header, auth.key];
  }
}

/** Sets a header, replacing one of the same name in any case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const lower = name.toLowerCase();
  for (const k of Object.keys(headers)) if (k.toLowerCase() === lower) delete headers[k];
  headers[name] = value;
}

export function getHeader(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const k of Object.keys(headers)) if (k.toLowerCase() === lower) return headers[k];
  return undefined;
}
