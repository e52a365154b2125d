import type { Magic, Result } from '../runtime/index';

/**
 * `%connect_info`, a magic of the kernel only: where its connection file is, how to attach the
 * terminal REPL to this very session, and how to interrupt it from another terminal (a SIGINT does
 * what an interrupt request does), for clients whose own interrupt fails: Ctrl-C in jupyter console
 * 6.4 never reaches the kernel (docs/jupyter.md).
 */
export function connectInfoMagic(connectionFile: string): Magic {
  return {
    name: 'connect_info',
    usage: '%connect_info',
    description:
      'shows how to attach the terminal REPL to this kernel (sqlcdc repl --existing …) and how to interrupt it from another terminal',
    run: (): Result[] => [
      {
        kind: 'message',
        text:
          `connection file: ${connectionFile}\nattach a terminal to this session with:\n  sqlcdc repl --existing ${connectionFile}\n` +
          `interrupt its running cell from another terminal with:\n  kill -INT ${process.pid}`,
      },
    ],
  };
}
