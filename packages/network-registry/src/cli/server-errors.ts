import { isApiError } from "@kubekit/generic-controlplane/controllers";
import { CliError, EXIT_SERVER } from "./cli-error.js";

/** The first error in a `cause` chain that satisfies `test`. */
function findCause<T>(error: unknown, test: (e: unknown) => e is T): T | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (test(e)) return e;
  }
  return undefined;
}

const isSystemError = (e: unknown): e is NodeJS.ErrnoException =>
  e instanceof Error && typeof (e as NodeJS.ErrnoException).code === "string" && typeof (e as NodeJS.ErrnoException).syscall === "string";
const isTlsError = (e: unknown): e is NodeJS.ErrnoException =>
  e instanceof Error &&
  typeof (e as NodeJS.ErrnoException).code === "string" &&
  /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(String((e as NodeJS.ErrnoException).code));

/**
 * What kubectl says when a request fails, so the messages read the same: a refused
 * connection, an unreachable server, and `Error from server (<reason>): <message>` for the
 * server's own answers (403 Forbidden names the user and the verb). Anything else is rethrown.
 */
export function serverFailure(error: unknown, server: string): CliError {
  const api = findCause(error, isApiError);
  if (api !== undefined) return new CliError(`Error from server (${api.reason || `HTTP ${api.code}`}): ${api.message}`, EXIT_SERVER);
  const host = new URL(server).host;
  const system = findCause(error, isSystemError);
  if (system?.code === "ECONNREFUSED")
    return new CliError(`The connection to the server ${host} was refused - did you specify the right host or port?`, EXIT_SERVER);
  if (system?.code === "ENOTFOUND" || system?.code === "EAI_AGAIN")
    return new CliError(`Unable to connect to the server: lookup ${new URL(server).hostname}: no such host`, EXIT_SERVER);
  if (system !== undefined) return new CliError(`Unable to connect to the server ${host}: ${system.message}`, EXIT_SERVER);
  const tls = findCause(error, isTlsError);
  if (tls !== undefined) return new CliError(`Unable to connect to the server ${host}: ${tls.message}`, EXIT_SERVER);
  throw error;
}
