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
const reads = new WeakMap<IncomingMessage, Promise<Buffer>>();

/**
 * Reads the whole body, failing with 413 as soon as it passes the byte limit and with 408 when it
 * stalls or takes too long. Calling it again for the same request returns the first read.
 */
export function readBody(req: IncomingMessage, limits: number | BodyReadLimits): Promise<Buffer> {
  let read = reads.get(req);
  if (read === undefined) {
    read = startRead(req, typeof limits === "number" ? { maxBytes: limits } : limits);
    reads.set(req, read);
  }
  return read;
}

/** The body of a request whose body was read (a write), without reading one that was not. */
export function bodyIfRead(req: IncomingMessage): Promise<Buffer> | undefined {
  return reads.get(req);
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
    let idleTimer: NodeJS.Timeout | undefined;
    let totalTimer: NodeJS.Timeout | undefined;
    const stopTimers = (): void => {
      clearTimeout(idleTimer);
      clearTimeout(totalTimer);
    };
    const fail = (error: ControlPlaneError): void => {
      if (failed) return;
      failed = true;
      chunks.length = 0;
      stopTimers();
      reject(error);
    };
    const idle = limits.idleTimeoutMs ?? 0;
    const armIdle = (): void => {
      if (idle <= 0) return;
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => fail(bodyReadTimeout(`no data for ${idle / 1000}s`)), idle);
    };
    const total = limits.timeoutMs ?? 0;
    if (total > 0) totalTimer = setTimeout(() => fail(bodyReadTimeout(`not complete after ${total / 1000}s`)), total);
    armIdle();
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      armIdle();
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
      stopTimers();
      if (!failed) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    req.on("error", (error) => fail(badRequest(`error reading request body: ${error.message}`, { cause: error })));
    req.on("close", () => {
      if (!ended) fail(badRequest("error reading request body: the client closed the connection"));
    });
  });
}
