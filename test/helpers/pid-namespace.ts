import { spawnSync } from 'node:child_process';

/** Why a test cannot run a process in a PID namespace of its own here (root, or user namespaces allowed), or undefined. */
export function pidNamespaceUnavailable(): string | undefined {
  const r = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']);
  return r.status === 0 ? undefined : 'unshare --pid is not allowed here (run the tests as root, as CI does)';
}

/**
 * The argv running `command` in a new PID namespace where it gets process id `pid`, as a process of
 * another container on the same workspace does: `pid` may name another process, or none, here.
 */
export function inPidNamespace(pid: number, command: string[]): [string, string[]] {
  return [
    'unshare',
    [
      '--pid',
      '--fork',
      '--mount-proc',
      'sh',
      '-c',
      `echo ${pid - 1} > /proc/sys/kernel/ns_last_pid; "$0" "$@" & wait`,
      ...command,
    ],
  ];
}
