import { toCodePointOffset } from './cursor';

/**
 * The content of shell requests, checked before anything runs: a client sending the wrong types
 * gets an error reply saying which field is wrong, not a JavaScript TypeError from deep inside.
 */

/** A request whose content does not follow the protocol; its reply names the field. */
export class BadRequest extends Error {
  readonly ename = 'BadRequest';
}

export interface CodeRequest {
  code: string;
}

/** A request at a cursor; `cursor_pos` counts Unicode code points, as Jupyter does. */
export interface CursorRequest extends CodeRequest {
  cursor_pos: number;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** `code` of an execute or is_complete request. */
export function codeRequest(type: string, content: Record<string, unknown>): CodeRequest {
  const code = content.code;
  if (typeof code !== 'string') throw new BadRequest(`${type}: 'code' must be a string, not ${describe(code)}`);
  return { code };
}

/**
 * `code` and `cursor_pos` of a complete or inspect request. A missing (or null) cursor stands at the
 * end of the code, where a console's cursor is when it asks.
 */
export function cursorRequest(type: string, content: Record<string, unknown>): CursorRequest {
  const { code } = codeRequest(type, content);
  const length = toCodePointOffset(code, code.length);
  const pos = content.cursor_pos ?? length;
  if (typeof pos !== 'number' || !Number.isInteger(pos) || pos < 0 || pos > length) {
    throw new BadRequest(
      `${type}: 'cursor_pos' must be a whole number from 0 to ${length} (the code's length in code points), not ${typeof pos === 'number' ? pos : describe(pos)}`,
    );
  }
  return { code, cursor_pos: pos };
}
