import { CcmE2eError } from "../errors.js";

/** A file error in a few words (`no such file`), not Node's `ENOENT: no such file or directory, access '/x'`. */
function fileErrorText(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    default:
      return (error as Error).message;
  }
}

/** The one-line error for a driver file that cannot be read. */
export function unreadableDriver(path: string, error: unknown): CcmE2eError {
  return new CcmE2eError("invalid-driver", `${path}: cannot read the driver: ${fileErrorText(error)}`, { cause: error });
}
