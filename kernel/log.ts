import type { Channel } from '../jupyter/connection';
import { stderrLog } from '../jupyter/log';
import type { Message } from '../jupyter/wire';
import { withoutSecrets } from '../runtime/startup';

/** The kernel's log: its standard error, where jupyter_client and consoles leave it. */
export const log = stderrLog('sqlcdc kernel');

/** SQLCDC_KERNEL_TRACE=1 logs every message on stderr: what a client sent and got, for debugging clients. */
export const TRACE = Boolean(process.env.SQLCDC_KERNEL_TRACE);

export function trace(direction: string, channel: Channel, msg: Message<unknown>): void {
  const parent = (msg.parent_header as { msg_id?: string }).msg_id;
  log(
    `${direction} ${channel} ${msg.header.msg_type} ${msg.header.msg_id}${parent ? ` (re ${parent})` : ''} ${JSON.stringify(withoutSecrets(msg.content)).slice(0, 200)}`,
  );
}
