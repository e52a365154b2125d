import { extname } from 'node:path';
import { ScriptError } from '../errors';
import type { Statement } from '../script/ast';

/**
 * Rules about a script as a whole, checked before its first statement runs: a script that breaks one
 * has no side effects at all (no request sent, no file written) instead of failing half-way.
 * - Only one CAPTURE per pipeline (spec 4.2 CAPTURE rule 1), nested APPLY PIPELINE blocks included.
 * - CAPTURE with DELETES is not in the inline APPLY PIPELINE of a read (at any depth): that block runs
 *   once per page, and DELETES takes every record the state holds but the page lacks for deleted, so
 *   each page would delete the records of the others (spec 4.2: DELETES assumes the source returns
 *   all its records).
 * - Nor is CAPTURE with a fixed name (an extension, spec 2.2): each page would overwrite the log of the
 *   page before, whose changes the state has already taken.
 * - LOAD reads the next change log of a write pipeline: it must be the pipeline's first statement and
 *   its only LOAD (reference A, "Readers of change logs").
 */
export function checkScript(statements: readonly Statement[]): void {
  let capture: Statement | undefined;
  let load: Statement | undefined;
  walk(statements, (stmt, nested, perPage) => {
    if (stmt.kind === 'Capture') {
      if (perPage && stmt.name && extname(stmt.name.value.trim())) {
        throw new ScriptError(
          `CAPTURE '${stmt.name.value.trim()}' cannot be in a read's inline APPLY PIPELINE: a name with an extension is ` +
            'one file, and each page would overwrite the log of the page before. Name the log without an extension ' +
            '(a new file per page) or place CAPTURE after the read',
          'semantic',
          stmt.pos,
          stmt.keyword,
        );
      }
      if (stmt.deletes && perPage) {
        throw new ScriptError(
          "CAPTURE with DELETES cannot be in a read's inline APPLY PIPELINE: it runs once per page, and the records " +
            'of the other pages would be reported deleted. Place CAPTURE after the read, where it sees every record',
          'semantic',
          stmt.pos,
          stmt.keyword,
        );
      }
      if (capture) {
        throw new ScriptError(
          `only one CAPTURE is allowed per pipeline; the first is at line ${capture.pos.line}`,
          'semantic',
          stmt.pos,
          stmt.keyword,
        );
      }
      capture = stmt;
    }
    if (stmt.kind === 'Load') {
      if (load)
        throw new ScriptError(
          `only one LOAD is allowed per pipeline; the first is at line ${load.pos.line}`,
          'semantic',
          stmt.pos,
          stmt.keyword,
        );
      if (nested || stmt !== statements[0]) {
        throw new ScriptError(
          'LOAD must be the first statement of the pipeline: it reads the change log the rest of the pipeline works on',
          'semantic',
          stmt.pos,
          stmt.keyword,
        );
      }
      load = stmt;
    }
  });
}

/**
 * Visits every statement, those inside APPLY PIPELINE blocks (inline or not) too, in script order;
 * `perPage` when a read's inline block, which runs once per page, holds it.
 */
function walk(
  statements: readonly Statement[],
  visit: (stmt: Statement, nested: boolean, perPage: boolean) => void,
  nested = false,
  perPage = false,
): void {
  for (const stmt of statements) {
    visit(stmt, nested, perPage);
    if (stmt.kind === 'ApplyPipeline') walk(stmt.statements, visit, true, perPage);
    else if ('pipeline' in stmt && stmt.pipeline) walk(stmt.pipeline.statements, visit, true, true);
  }
}
