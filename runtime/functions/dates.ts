import type { Value } from '../dataset/types';
import type { SessionEnv } from '../scope';
import { cultureFor, type Culture } from './dotnet-format/culture';
import { DateParseError, formatDate, localWall, parseDateLoose, type DateKind } from './dotnet-format/date';
import { FormatError } from './dotnet-format/number';
import { FunctionError } from './types';
import { text } from './values';

/**
 * Date arguments and results of the date functions. A datetime cell holds a wall clock in its UTC
 * fields (runtime/dataset/parse-datetime.ts); a local function reads such a wall clock as the agent's
 * local time, a UTC function as UTC. Text with an offset (Z, +02:00) is an instant, converted to the
 * function's zone. Date functions return text in the requested format (default `s`).
 */

/** The culture of #setjsonsettings (invariant unless set). */
export function cultureOf(env: SessionEnv): Culture {
  try {
    return cultureFor(env.jsonSettings.get('culture'));
  } catch (e) {
    throw new FunctionError((e as Error).message);
  }
}

/** A date argument as a wall clock in `zone` (local or UTC). */
export function wallOf(v: Value, zone: 'local' | 'utc', what = 'the date'): Date {
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw new FunctionError(`${what} is not a valid date`);
    return v;
  }
  if (v === null || (typeof v === 'string' && v.trim() === '')) throw new FunctionError(`${what} is empty`);
  try {
    const parsed = parseDateLoose(text(v));
    if (parsed.offset === undefined) return parsed.wall;
    const instant = new Date(parsed.wall.getTime() - parsed.offset * 60000);
    return zone === 'utc' ? instant : localWall(instant);
  } catch (e) {
    if (e instanceof DateParseError) throw new FunctionError(`${what}: ${e.message}`);
    throw e;
  }
}

/** The range of .NET's DateTime, 0001-01-01T00:00:00 to 9999-12-31T23:59:59.999, as wall clocks. */
const MIN_WALL = -62135596800000;
const MAX_WALL = 253402300799999;

/** Formats a wall clock; a bad format is an error naming it, a date .NET cannot hold is one too. */
export function formatWall(env: SessionEnv, wall: Date, format: Value, kind: DateKind): string {
  const t = wall.getTime();
  if (!(t >= MIN_WALL && t <= MAX_WALL))
    throw new FunctionError('the result is out of the date range (0001-01-01T00:00:00 to 9999-12-31T23:59:59)');
  const f = format === null ? '' : text(format);
  try {
    return formatDate(wall, f, kind, cultureOf(env));
  } catch (e) {
    if (e instanceof FormatError)
      throw new FunctionError(`bad date format ${e.message.startsWith("'") ? e.message : `'${f}': ${e.message}`}`);
    throw e;
  }
}
