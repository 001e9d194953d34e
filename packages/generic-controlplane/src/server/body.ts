import type { IncomingMessage } from "node:http";
import { badRequest, bodyReadTimeout, requestEntityTooLarge } from "../api/errors/index.js";
import { isControlPlaneError, type ControlPlaneError } from "../api/errors/control-plane-error.js";

/** kube-apiserver's request body limit (3 MiB, `--max-request-body-bytes` default). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** A body that sends no byte for this long is given up on (408). */
export const DEFAULT_BODY_READ_IDLE_TIMEOUT_MS = 10_000;
/** The whole body must arrive within this, like kube-apiserver's `--request-timeout` (60 s) for a whole request. */
export const DEFAULT_BODY_READ_TIMEOUT_MS = 60_000;

export interface BodyReadLimits {
  /** Bytes; beyond them the request fails with 413. */
  maxBytes: number;
  /** Milliseconds without a byte before the read fails with 408; 0 = no limit. */
  idleTimeoutMs?: number;
  /** Milliseconds for the whole body before the read fails with 408; 0 = no limit. */
  timeoutMs?: number;
}

function tooLarge(limit: number): ControlPlaneError {
  return requestEntityTooLarge(`limit is ${limit}`);
}

/** Whether `error` is a body read that ran out of time (the connection cannot be reused after it). */
export function isBodyTimeout(error: unknown): boolean {
  return isControlPlaneError(error) && error.code === "Timeout" && error.httpStatus === 408;
}

// One read per request: the server reads a mutating request's body before it takes an in-flight
// seat, and the handler that decodes it later gets the same bytes.
// The read is kept on the request itself rather than in a WeakMap, whose entry per request is
// extra work for every garbage collection.
const READ = Symbol("body read");
type ReadRequest = IncomingMessage & { [READ]?: Promise<Buffer> };

/**
 * Reads the whole body, failing with 413 as soon as it passes the byte limit and with 408 when it
 * stalls or takes too long. Calling it again for the same request returns the first read.
 */
export function readBody(req: IncomingMessage, limits: number | BodyReadLimits): Promise<Buffer> {
  const request = req as ReadRequest;
  return (request[READ] ??= startRead(req, typeof limits === "number" ? { maxBytes: limits } : limits));
}

/** The body of a request whose body was read (a write), without reading one that was not. */
export function bodyIfRead(req: IncomingMessage): Promise<Buffer> | undefined {
  return (req as ReadRequest)[READ];
}

function startRead(req: IncomingMessage, limits: BodyReadLimits): Promise<Buffer> {
  const limit = limits.maxBytes;
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    // One timer watches both deadlines: it is set once for the nearer one and, when it fires
    // early for the idle one (data came meanwhile), set again; a chunk only notes its time.
    const idle = limits.idleTimeoutMs ?? 0;
    const total = limits.timeoutMs ?? 0;
    const startedAt = performance.now();
    let lastDataAt = startedAt;
    let timer: NodeJS.Timeout | undefined;
    const fail = (error: ControlPlaneError): void => {
      if (failed) return;
      failed = true;
      chunks.length = 0;
      clearTimeout(timer);
      reject(error);
    };
    const arm = (now: number): void => {
      let wait = Infinity;
      if (total > 0) wait = startedAt + total - now;
      if (idle > 0) wait = Math.min(wait, lastDataAt + idle - now);
      if (wait !== Infinity) timer = setTimeout(expire, Math.max(1, Math.ceil(wait)));
    };
    const expire = (): void => {
      const now = performance.now();
      if (total > 0 && now - startedAt >= total) fail(bodyReadTimeout(`not complete after ${total / 1000}s`));
      else if (idle > 0 && now - lastDataAt >= idle) fail(bodyReadTimeout(`no data for ${idle / 1000}s`));
      else arm(now);
    };
    arm(startedAt);
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      if (idle > 0) lastDataAt = performance.now();
      size += chunk.length;
      if (size > limit) {
        fail(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    let ended = false;
    req.on("end", () => {
      ended = true;
      clearTimeout(timer);
      if (!failed) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    req.on("error", (error) => fail(badRequest(`error reading request body: ${error.message}`, { cause: error })));
    req.on("close", () => {
      if (!ended) fail(badRequest("error reading request body: the client closed the connection"));
    });
  });
}
