import { ScriptError } from '../errors';
import type { Statement } from '../script/ast';

/**
 * Rules about a script as a whole, checked before its first statement runs: a script that breaks one
 * has no side effects at all (no request sent, no file written) instead of failing half-way.
 * - Only one CAPTURE per pipeline (spec 4.2 CAPTURE rule 1), nested APPLY PIPELINE blocks included.
 * - LOAD reads the next change log of a write pipeline: it must be the pipeline's first statement and
 *   its only LOAD (reference A, "Readers of change logs").
 */
export function checkScript(statements: readonly Statement[]): void {
  let capture: Statement | undefined;
  let load: Statement | undefined;
  walk(statements, (stmt, nested) => {
    if (stmt.kind === 'Capture') {
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

/** Visits every statement, those inside APPLY PIPELINE blocks (inline or not) too, in script order. */
function walk(
  statements: readonly Statement[],
  visit: (stmt: Statement, nested: boolean) => void,
  nested = false,
): void {
  for (const stmt of statements) {
    visit(stmt, nested);
    const inner =
      stmt.kind === 'ApplyPipeline' ? stmt.statements : 'pipeline' in stmt ? stmt.pipeline?.statements : undefined;
    if (inner) walk(inner, visit, true);
  }
}
