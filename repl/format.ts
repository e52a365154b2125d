import { styleText } from 'node:util';
import {
  caretLines,
  describeError,
  displayFallback,
  renderText,
  type Result,
  type ScriptError,
} from '../runtime/index';

export interface TerminalStyle {
  /** ANSI colours: only on a TTY with NO_COLOR unset (see `useColor`). */
  color: boolean;
  /** Columns available for tables; undefined when the output is not a terminal. */
  width?: number;
}

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColor(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR;
}

function paint(style: TerminalStyle, format: Parameters<typeof styleText>[0], text: string): string {
  return style.color ? styleText(format, text) : text;
}

/**
 * `error: <STATEMENT> at line L, column C: reason`, then the offending line of `source` with a caret
 * under the column. Never a stack trace: a ScriptError is the user's problem, explained.
 */
export function formatError(error: ScriptError, source: string, style: TerminalStyle): string {
  const lines = [paint(style, 'red', `error: ${describeError(error)}`)];
  if (error.position && error.kind !== 'cancelled') {
    const [line, caret] = caretLines(source, error.position);
    lines.push(`  ${line}`, `  ${paint(style, 'red', caret)}`);
  }
  return lines.join('\n');
}

/** A failure of the interpreter itself (a bug, not the user's script): said so, the REPL goes on. */
export function formatInternalError(e: unknown, style: TerminalStyle): string {
  const detail =
    process.env.SQLCDC_DEBUG && e instanceof Error && e.stack ? e.stack : e instanceof Error ? e.message : String(e);
  return paint(style, 'red', `internal error: ${detail}`);
}

/** One result as the terminal shows it. */
export function formatResult(r: Result, style: TerminalStyle): string {
  switch (r.kind) {
    case 'table': {
      const table = renderText(r.dataset, { limit: r.limit, width: style.width });
      return r.title ? `${paint(style, 'bold', r.title)}\n${table}` : table;
    }
    case 'message':
      return r.text;
    case 'warning':
      return paint(style, 'yellow', `warning: ${r.text}`);
    case 'display':
      return displayFallback(r);
    case 'progress':
      return r.text;
    case 'error':
      return formatError(r.error, r.source, style);
  }
}
