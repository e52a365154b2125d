import { cellStatus, complete, inspect, pipelineNameOf, Session, type SessionFolders } from '../runtime/index';
import { connectInfoMagic } from './connect-info';
import { toCodePointOffset, toUtf16Offset } from './cursor';
import { Executor, type Publish } from './executor';
import type { History } from './history';
import type { CodeRequest, CursorRequest } from './requests';

/**
 * Everything the kernel asks the interpreter. Kept apart from kernel.ts, which loads it on first
 * need: the interpreter (parser tables, function library) takes longer to load than a client
 * waits for kernel_info.
 */
export class Backend {
  readonly session: Session;
  readonly executor: Executor;

  constructor(publish: Publish, history: History, connectionFile: string, folders: SessionFolders) {
    // jupyter_server names the notebook in JPY_SESSION_NAME; nbclient/nbconvert do not (then %pipeline).
    const notebook = process.env.JPY_SESSION_NAME;
    this.session = new Session({
      workspace: folders.workspace,
      cwd: folders.cwd,
      magics: [connectInfoMagic(connectionFile)],
      pipeline: notebook ? pipelineNameOf(notebook) : 'notebook',
    });
    this.executor = new Executor(this.session, history, publish);
  }

  /**
   * Runs a silent cell (no output, not counted, not in the history) on the new session, so that
   * V8 has compiled the execute path (lexer, parser, a command, templates) before the first real
   * cell: that one then takes about a millisecond instead of ten.
   */
  async warmUp(): Promise<void> {
    await this.executor.execute({ code: "PRINT 'warm-up';", silent: true, store_history: false });
  }

  /** Releases what the session holds open (listeners, pools): the kernel shuts down or restarts. */
  close(): Promise<void> {
    return this.session.close();
  }

  complete(req: CursorRequest) {
    const cursor = toUtf16Offset(req.code, req.cursor_pos);
    const c = complete(this.session, req.code, cursor);
    return {
      status: 'ok',
      matches: c.matches,
      cursor_start: toCodePointOffset(req.code, c.start),
      cursor_end: toCodePointOffset(req.code, c.end),
      metadata: {},
    };
  }

  inspect(req: CursorRequest) {
    const cursor = toUtf16Offset(req.code, req.cursor_pos);
    const found = inspect(this.session, req.code, cursor);
    const data: Record<string, string> = {};
    if (found.found) {
      data['text/plain'] = found.text;
      if (found.markdown) data['text/markdown'] = found.markdown;
    }
    return { status: 'ok', found: found.found, data, metadata: {} };
  }

  isComplete(req: CodeRequest) {
    return cellStatus(req.code);
  }
}
