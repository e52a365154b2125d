import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * A self-signed certificate and its key, made by openssl as `dir`/cert.pem and `dir`/key.pem, valid a
 * day for `subject` (`/CN=localhost`); `extra`: more arguments of `openssl req` (a subjectAltName).
 */
export function selfSigned(dir: string, subject: string, extra: string[] = []): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      subject,
      ...extra,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { cert, key };
}
