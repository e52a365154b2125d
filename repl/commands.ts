import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { REPLServer } from 'node:repl';
import { fileErrorReason, writeFileAtomic } from '../runtime/support';

/** What the commands use of the REPL they are defined on (a CellRepl). */
export interface ScriptCommandHost {
  readonly server: REPLServer;
  /** The cells that ran without error, for .save. */
  readonly transcript: readonly string[];
  defineCommand(name: string, help: string, action: (arg: string) => unknown): void;
  clearPending(): void;
  runCell(cell: string): Promise<void>;
  say(text: string): void;
}

/**
 * The REPL commands of both REPLs (local, and attached to a kernel) that replace node's own, which
 * speak of JavaScript and run ahead of the lines typed before them: .load and .save work on SQL CDC
 * scripts, .break and .clear on the statement being typed and the pipeline.
 */
export function defineScriptCommands(cells: ScriptCommandHost, cwd: string): void {
  cells.defineCommand('break', 'Drop the statement being typed', () => cells.clearPending());
  cells.defineCommand(
    'clear',
    'Drop the statement being typed and start a new empty pipeline (as %reset)',
    async () => {
      cells.clearPending();
      await cells.runCell('%reset');
    },
  );
  cells.defineCommand(
    'load',
    'Run a SQL CDC script file in this session as one cell (.load FILE); it stops at its first error',
    async (arg) => {
      const file = arg.trim();
      if (!file) return cells.say('usage: .load FILE');
      let script: string;
      try {
        script = readFileSync(resolve(cwd, file), 'utf8').replace(/^\uFEFF/, '');
      } catch (e) {
        return cells.say(`cannot read ${file}: ${fileErrorReason(e)}`);
      }
      await cells.runCell(script);
    },
  );
  cells.defineCommand(
    'save',
    'Save the statements that ran without error to a SQL CDC script file (.save FILE); magics are left out',
    (arg) => {
      const file = arg.trim();
      if (!file) return cells.say('usage: .save FILE');
      const path = resolve(cwd, file);
      try {
        writeFileAtomic(path, cells.transcript.map((cell) => `${cell}\n`).join(''));
      } catch (e) {
        return cells.say(`cannot save ${file}: ${(e as Error).message}`);
      }
      cells.say(`saved ${cells.transcript.length} cell(s) to ${path}`);
    },
  );
  // node's editor mode hands its whole buffer to the evaluator, so it runs SQL CDC already; only its
  // help speaks of JavaScript. It exists in a terminal only.
  const editor = cells.server.commands.editor;
  if (editor)
    cells.server.defineCommand('editor', {
      help: 'Type or paste several statements; Ctrl-D runs them as one cell, Ctrl-C drops them',
      action: editor.action,
    });
}
