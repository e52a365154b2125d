import { readFileSync } from 'node:fs';

/** The connection file a Jupyter client writes and passes to the kernel (and to `--existing` clients). */
export interface ConnectionInfo {
  transport: 'tcp' | 'ipc';
  ip: string;
  key: string;
  signature_scheme: string;
  shell_port: number;
  control_port: number;
  stdin_port: number;
  iopub_port: number;
  hb_port: number;
}

export type Channel = 'shell' | 'control' | 'stdin' | 'iopub' | 'hb';

export function readConnectionFile(path: string): ConnectionInfo {
  let raw: Partial<ConnectionInfo>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<ConnectionInfo>;
  } catch (e) {
    throw new Error(`cannot read connection file ${path}: ${(e as Error).message}`, { cause: e });
  }
  for (const k of ['shell_port', 'control_port', 'stdin_port', 'iopub_port', 'hb_port'] as const) {
    if (raw[k] === undefined) throw new Error(`connection file ${path} has no ${k}`);
  }
  return { transport: 'tcp', ip: '127.0.0.1', key: '', signature_scheme: 'hmac-sha256', ...raw } as ConnectionInfo;
}

/** ZeroMQ address of one channel: `tcp://ip:port`, or for ipc the `ip-port` path jupyter_client uses. */
export function endpoint(info: ConnectionInfo, channel: Channel): string {
  const port = info[`${channel}_port` as const];
  return info.transport === 'ipc' ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;
}
