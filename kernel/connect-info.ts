import type { Magic } from '../runtime/magics/magic';
import type { Result } from '../runtime/results';

/**
 * `%connect_info`, a magic of the kernel only: where its connection file is, and how to attach the
 * terminal REPL to this very session.
 */
export function connectInfoMagic(connectionFile: string): Magic {
  return {
    name: 'connect_info',
    usage: '%connect_info',
    description: 'shows how to attach the terminal REPL to this kernel (sqlcdc repl --existing …)',
    run: (): Result[] => [
      {
        kind: 'message',
        text: `connection file: ${connectionFile}\nattach a terminal to this session with:\n  sqlcdc repl --existing ${connectionFile}`,
      },
    ],
  };
}
