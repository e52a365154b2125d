import { setImmediate as nextTurn } from 'node:timers/promises';
import { EXIT } from './constants';

/**
 * Ctrl-C (SIGINT) aborts `controller`; a second one exits at once. Returns how to stop listening, which
 * first lets the event loop poll once more: a signal that came while a statement held the loop (a
 * synchronous regular expression, a library call) is read only by a poll, and removing the last
 * listener before would drop it, ending an interrupted run as if it had not been. Two turns: the first
 * may end in the check phase right after the poll that ran the statement, the second comes after a new poll.
 */
export function abortOnSigint(controller: AbortController): () => Promise<void> {
  const onSigint = () => (controller.signal.aborted ? process.exit(EXIT.interrupted) : controller.abort());
  process.on('SIGINT', onSigint);
  return async () => {
    await nextTurn();
    await nextTurn();
    process.off('SIGINT', onSigint);
  };
}
