/**
 * Why a file or folder could not be read, in words: the errno codes a user meets (a wrong path, a
 * folder given for a file, a file for a folder, rights) rather than Node's `ENOENT: no such file or
 * directory, open '/abs/path'`, which repeats the path and names the system call.
 */
export function fileErrorReason(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'ENOTDIR':
      return 'it is a file, not a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return (e as Error).message;
  }
}
