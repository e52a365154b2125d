import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import {
  BadSignatureError,
  childOf,
  decode,
  encode,
  newHeader,
  PROTOCOL_VERSION,
  Signer,
  type Message,
} from '../../jupyter/wire';

function request(content: Record<string, unknown> = { code: "PRINT 'x';" }): Message {
  return {
    identities: [Buffer.from('client-1')],
    header: newHeader('execute_request', 'client-session', 'alice'),
    parent_header: {},
    metadata: {},
    content,
    buffers: [],
  };
}

test('encoded frames follow the wire layout with an HMAC-SHA256 of the four JSON frames', () => {
  const frames = encode(request(), new Signer('secret'));
  assert.equal(frames[0].toString(), 'client-1');
  assert.equal(frames[1].toString(), '<IDS|MSG>');
  const expected = createHmac('sha256', 'secret');
  for (const f of frames.slice(3, 7)) expected.update(f);
  assert.equal(frames[2].toString(), expected.digest('hex'));
  assert.equal((JSON.parse(frames[3].toString()) as { version: string }).version, PROTOCOL_VERSION);
});

test('decode returns what encode wrote, identities and buffers included', () => {
  const signer = new Signer('secret');
  const msg = request();
  msg.buffers = [Buffer.from([1, 2, 3])];
  const back = decode(encode(msg, signer), signer);
  assert.deepEqual(back.identities.map(String), ['client-1']);
  assert.deepEqual(back.header, msg.header);
  assert.deepEqual(back.content, msg.content);
  assert.deepEqual([...back.buffers[0]], [1, 2, 3]);
});

test('a message signed with another key, or tampered with, is rejected', () => {
  const frames = encode(request(), new Signer('forger'));
  assert.throws(() => decode(frames, new Signer('secret')), BadSignatureError);

  const good = encode(request(), new Signer('secret'));
  good[6] = Buffer.from(JSON.stringify({ code: 'EXIT;' }));
  assert.throws(() => decode(good, new Signer('secret')), /bad HMAC signature/);
});

test('frames without the delimiter or with too few parts are rejected, not thrown as crashes', () => {
  const signer = new Signer('');
  assert.throws(() => decode([Buffer.from('hello')], signer), BadSignatureError);
  const frames = encode(request(), signer);
  assert.throws(() => decode(frames.slice(0, 5), signer), BadSignatureError);
});

test('an empty key means unsigned messages (as jupyter_client does)', () => {
  const signer = new Signer('');
  const frames = encode(request(), signer);
  assert.equal(frames[2].toString(), '');
  assert.equal(decode(frames, signer).header.msg_type, 'execute_request');
});

test('an unknown signature scheme is refused when the key is set', () => {
  assert.throws(() => new Signer('k', 'hmac-md5'), /unsupported signature scheme/);
});

test('a reply carries the request as parent, the sender session and the request identities', () => {
  const req = request();
  const reply = childOf(req, 'execute_reply', { status: 'ok' }, 'kernel-session');
  assert.equal(reply.parent_header, req.header);
  assert.equal(reply.header.session, 'kernel-session');
  assert.equal(reply.header.msg_type, 'execute_reply');
  assert.notEqual(reply.header.msg_id, req.header.msg_id);
  assert.deepEqual(reply.identities.map(String), ['client-1']);
  assert.deepEqual(childOf(undefined, 'status', {}, 'k').parent_header, {});
});
