import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * The Jupyter wire format (messaging protocol 5.3): routing identities, the `<IDS|MSG>` delimiter,
 * an HMAC signature, then four JSON frames and optional binary buffers. Pure functions; the sockets
 * live in sockets.ts.
 */

export const PROTOCOL_VERSION = '5.3';
const DELIMITER = '<IDS|MSG>';

export interface Header {
  msg_id: string;
  msg_type: string;
  session: string;
  username: string;
  date: string;
  version: string;
}

export interface Message<C = Record<string, unknown>> {
  /** ZeroMQ routing identities (ROUTER) or the topic (PUB); echoed back on replies. */
  identities: Buffer[];
  header: Header;
  /** The request this message answers or was produced by; `{}` when none. */
  parent_header: Header | Record<string, never>;
  metadata: Record<string, unknown>;
  content: C;
  buffers: Buffer[];
}

export class BadSignatureError extends Error {
  constructor(reason: string) {
    super(`dropped message: ${reason}`);
  }
}

/** Signs and checks messages with the connection file's key (an empty key disables signing). */
export class Signer {
  private readonly key: Buffer;

  constructor(key: string, scheme = 'hmac-sha256') {
    if (key && scheme !== 'hmac-sha256') throw new Error(`unsupported signature scheme '${scheme}' (only hmac-sha256)`);
    this.key = Buffer.from(key, 'utf8');
  }

  sign(frames: Buffer[]): string {
    if (this.key.length === 0) return '';
    const hmac = createHmac('sha256', this.key);
    for (const f of frames) hmac.update(f);
    return hmac.digest('hex');
  }

  verify(signature: string, frames: Buffer[]): boolean {
    if (this.key.length === 0) return true;
    const expected = Buffer.from(this.sign(frames), 'latin1');
    const given = Buffer.from(signature, 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

export function newHeader(msgType: string, session: string, username = 'kernel'): Header {
  return {
    msg_id: randomUUID(),
    msg_type: msgType,
    session,
    username,
    date: new Date().toISOString(),
    version: PROTOCOL_VERSION,
  };
}

/** Frames of `msg` ready for a ZeroMQ send: identities, delimiter, signature, header, parent, metadata, content, buffers. */
export function encode(msg: Message<unknown>, signer: Signer): Buffer[] {
  const parts = [
    Buffer.from(JSON.stringify(msg.header)),
    Buffer.from(JSON.stringify(msg.parent_header)),
    Buffer.from(JSON.stringify(msg.metadata)),
    Buffer.from(JSON.stringify(msg.content)),
  ];
  return [...msg.identities, Buffer.from(DELIMITER), Buffer.from(signer.sign(parts)), ...parts, ...msg.buffers];
}

/** Parses received frames; throws BadSignatureError for a forged or malformed message. */
export function decode(frames: Buffer[], signer: Signer): Message {
  const at = frames.findIndex((f) => f.length === DELIMITER.length && f.toString() === DELIMITER);
  if (at < 0 || frames.length < at + 6)
    throw new BadSignatureError('not a Jupyter message (no delimiter or missing frames)');
  const signature = frames[at + 1].toString();
  const parts = frames.slice(at + 2, at + 6);
  if (!signer.verify(signature, parts)) throw new BadSignatureError('bad HMAC signature');
  let parsed: unknown[];
  try {
    parsed = parts.map((p) => JSON.parse(p.toString()) as unknown);
  } catch {
    throw new BadSignatureError('frames are not JSON');
  }
  const [header, parent, metadata, content] = parsed as [
    Header,
    Message['parent_header'],
    Record<string, unknown>,
    Record<string, unknown>,
  ];
  if (!header || typeof header.msg_type !== 'string') throw new BadSignatureError('header without msg_type');
  return {
    identities: frames.slice(0, at),
    header,
    parent_header: parent ?? {},
    metadata: metadata ?? {},
    content: content ?? {},
    buffers: frames.slice(at + 6),
  };
}

/**
 * A message answering (or produced by) `parent`, sent from `session` (the sender's own session id):
 * clients route output to cells by the parent header, so it is always set when there is one.
 */
export function childOf<C>(
  parent: Pick<Message, 'header' | 'identities'> | undefined,
  msgType: string,
  content: C,
  session: string,
  identities = parent?.identities ?? [],
): Message<C> {
  return {
    identities,
    header: newHeader(msgType, session),
    parent_header: parent?.header ?? {},
    metadata: {},
    content,
    buffers: [],
  };
}
