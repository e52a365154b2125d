import {
  caretLines,
  describeError,
  escapeHtml,
  renderHtml,
  renderText,
  toDataResource,
  type Dataset,
  type ScriptError,
} from '../runtime/index';

/** A Jupyter MIME bundle: what display_data and execute_result carry. */
export type MimeBundle = Record<string, unknown>;

/**
 * A dataset as one bundle: plain text (no colours, for consoles and the conformance suite), an HTML
 * table (notebooks) and Table Schema data (JupyterLab's grid), all cut at the display limit.
 */
export function tableBundle(dataset: Dataset, limit: number, title?: string): MimeBundle {
  const text = renderText(dataset, { limit });
  const html = renderHtml(dataset, { limit });
  return {
    'text/plain': title ? `${title}\n${text}` : text,
    'text/html': title ? `<strong>${escapeHtml(title)}</strong>\n${html}` : html,
    'application/vnd.dataresource+json': toDataResource(dataset, limit),
  };
}

/** A display result's bundle: its rich forms, and its description as the text/plain every client can show. */
export function displayBundle(data: MimeBundle, text: string): MimeBundle {
  return { ...data, 'text/plain': text };
}

export interface ErrorContent {
  ename: string;
  evalue: string;
  traceback: string[];
}

/**
 * An error as Jupyter shows it: the statement, line and column, the reason, then the source line
 * with a caret (not for a cancellation, which is no fault of the text; as in the REPL).
 */
export function errorContent(error: ScriptError, source: string): ErrorContent {
  const traceback = [describeError(error)];
  if (error.position && error.kind !== 'cancelled')
    traceback.push(...caretLines(source, error.position).map((l) => `    ${l}`));
  return { ename: error.name, evalue: error.message, traceback };
}
