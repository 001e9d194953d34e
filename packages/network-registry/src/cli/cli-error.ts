/** Exit codes: 0 ok, 1 conflicts, drift or a failed allocation, 2 bad usage or unreadable input, 3 the cluster cannot be reached or refused the request. */
export const EXIT_OK = 0;
export const EXIT_CONFLICT = 1;
export const EXIT_USAGE = 2;
export const EXIT_SERVER = 3;

/** An error the CLI reports as `kana: <message>` and exits with `exitCode`. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
