import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PDFDocument } from 'pdf-lib';
import { request } from 'undici';
import { redactUrl } from '../workspace/redact';

/**
 * The worker behind runSync (sync.ts): work that only exists as promises (pdf-lib, HTTP) run here
 * while the calling thread waits, so functions stay synchronous for the template evaluator.
 */
export interface SyncRequest {
  task: 'image2pdf';
  /** Image bytes, a file path, an http(s) URL, or an ftp(s) URL. */
  source: { bytes: Uint8Array } | { file: string } | { url: string } | { ftp: string };
  sab: SharedArrayBuffer;
}

const port = (workerData as { port: MessagePort }).port;

async function imageBytes(source: SyncRequest['source']): Promise<Uint8Array> {
  if ('bytes' in source) return source.bytes;
  if ('file' in source) return readFile(source.file);
  if ('ftp' in source) return ftpBytes(source.ftp);
  const res = await request(source.url, {
    method: 'GET',
    maxRedirections: 5,
    headersTimeout: 30000,
    bodyTimeout: 30000,
  });
  if (res.statusCode >= 400) {
    await res.body.dump();
    throw new Error(`GET ${source.url} answered HTTP ${res.statusCode}`);
  }
  return new Uint8Array(await res.body.arrayBuffer());
}

/** The file an ftp:// or ftps:// (explicit TLS) URL names, its user and password those of the URL. */
async function ftpBytes(address: string): Promise<Uint8Array> {
  const url = new URL(address);
  // basic-ftp loads with the first FTP image, as with the first FTP transfer of a drive (ftp.ts).
  const { Client: FtpClient } = require('basic-ftp') as typeof import('basic-ftp');
  const client = new FtpClient(30_000);
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  try {
    await client.access({
      host: url.hostname,
      port: url.port ? Number(url.port) : 21,
      user: decodeURIComponent(url.username) || 'anonymous',
      password: decodeURIComponent(url.password),
      secure: url.protocol === 'ftps:',
    });
    await client.downloadTo(sink, decodeURIComponent(url.pathname));
    return Buffer.concat(chunks);
  } catch (e) {
    throw new Error(`FTP download of ${redactUrl(address)} failed: ${(e as Error).message}`, { cause: e });
  } finally {
    client.close();
  }
}

async function image2pdf(source: SyncRequest['source']): Promise<Uint8Array> {
  const bytes = await imageBytes(source);
  const pdf = await PDFDocument.create();
  const isPng = bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  const isJpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
  if (!isPng && !isJpeg) throw new Error('the image is neither PNG nor JPEG');
  const image = isPng ? await pdf.embedPng(bytes) : await pdf.embedJpg(bytes);
  const page = pdf.addPage([image.width, image.height]);
  page.drawImage(image, { x: 0, y: 0, width: image.width, height: image.height });
  return pdf.save();
}

async function answer(req: SyncRequest): Promise<void> {
  let reply: { ok: Uint8Array } | { error: string };
  try {
    reply = { ok: await image2pdf(req.source) };
  } catch (e) {
    reply = { error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
  const flag = new Int32Array(req.sab);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

parentPort!.on('message', (req: SyncRequest) => void answer(req));
