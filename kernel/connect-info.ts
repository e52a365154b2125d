import { registerMagic, type Result } from '../runtime/index';

/**
 * `%connect_info`, a magic of the kernel only: where its connection file is, and how to attach the
 * terminal REPL to this very session.
 */
export function registerConnectInfo(connectionFile: string): void {
  registerMagic({
    name: 'connect_info',
    usage: '%connect_info',
    description: 'shows how to attach the terminal REPL to this kernel (sqlcdc repl --existing …)',
    run: (): Result[] => [
      {
        kind: 'message',
        text: `connection file: ${connectionFile}\nattach a terminal to this session with:\n  sqlcdc repl --existing ${connectionFile}`,
      },
    ],
  });
}
