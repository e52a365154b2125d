import { readFileSync } from 'node:fs';
import { ScriptError } from '../errors';

/**
 * A workspace file of JSON (job.json, keys.json, connections.json, variables.json), read whole. One
 * that a hand edit, a copy cut short or a disk fault damaged is an error naming the file and what is
 * wrong with it: parsed blindly, it would fail later as a message naming neither.
 */
export function readJsonFile<T>(file: string, shape: 'array' | 'object'): T {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if (e instanceof SyntaxError) throw new ScriptError(`${file} is not valid JSON: ${e.message}`, 'runtime');
    throw e;
  }
  const array = Array.isArray(value);
  if (shape === 'array' ? !array : array || value === null || typeof value !== 'object')
    throw new ScriptError(`${file} does not hold a JSON ${shape}`, 'runtime');
  return value as T;
}
