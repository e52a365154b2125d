import { readFileSync, readlinkSync } from 'node:fs';

/** Whether a process with this id exists; EPERM means one of another user has it, so it is alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This boot of the machine (/proc/sys/kernel/random/boot_id, 12 hex digits), or '' where /proc is
 * missing: a process id of an earlier boot names no process of this one.
 */
export function bootId(): string {
  return (boot ??= readOr('', () =>
    readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')
      .replace(/[^0-9a-f]/g, '')
      .slice(0, 12),
  ));
}

/**
 * The PID namespace this process sees process ids in (the inode of /proc/self/ns/pid), or '': a
 * process id written by a process in another one (another container on the same workspace) names
 * another process here, or none.
 */
export function pidNamespace(): string {
  return (namespace ??= readOr('', () => /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? ''));
}

/** The process's start time in clock ticks after boot (/proc/PID/stat, field 22); throws where unknown. */
export function startTicks(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

let boot: string | undefined;
let namespace: string | undefined;

function readOr(otherwise: string, read: () => string): string {
  try {
    return read();
  } catch {
    return otherwise;
  }
}
