import { isAbsolute, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type { Value } from '../dataset/types';
import { runSync } from './sync';
import type { SyncRequest } from './sync-worker';
import { FunctionError, type CallContext } from './types';
import { text } from './values';

/**
 * #image2pdf's source: binary bytes, hex bytes, an http(s) URL, an ftp(s) URL (spec 4.4: "an FTP file
 * name") or a file (relative to the working folder). Not a cloud drive's object (the spec names none).
 */
export function image2pdf(v: Value, ctx: CallContext): Buffer {
  if (v === null || v === '') throw new FunctionError('no image given');
  let source: SyncRequest['source'];
  if (v instanceof Uint8Array) source = { bytes: v };
  else {
    const s = text(v).trim();
    if (/^https?:\/\//i.test(s)) source = { url: s };
    else if (/^ftps?:\/\//i.test(s)) source = { ftp: s };
    else if (/^(s3|az):\/\//i.test(s))
      // Not a source the spec names; both stores hand out an https URL of one object that needs no key.
      throw new FunctionError(
        `an ${s.slice(0, s.indexOf(':')).toLowerCase()}:// address is not read here: give the object's pre-signed https URL (S3) or its https URL with a SAS token (Azure)`,
      );
    else if (s.length >= 16 && s.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(s))
      source = { bytes: Buffer.from(s, 'hex') };
    else {
      const file = isAbsolute(s) ? s : resolve(ctx.scope.session.cwd, s);
      if (!existsSync(file)) throw new FunctionError(`no such image file: ${file}`);
      source = { file };
    }
  }
  try {
    return Buffer.from(runSync({ task: 'image2pdf', source }));
  } catch (e) {
    throw new FunctionError((e as Error).message);
  }
}
