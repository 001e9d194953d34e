import type { IncomingMessage } from "node:http";
import { ControlPlaneError } from "../errors.js";

/** kube-apiserver's request body limit (3 MiB, `--max-request-body-bytes` default). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

function tooLarge(limit: number): ControlPlaneError {
  return new ControlPlaneError("RequestEntityTooLarge", `Request entity too large: limit is ${limit}`);
}

/** Reads the whole body, failing with 413 as soon as it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!failed) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    req.on("error", (error) => {
      if (!failed) {
        failed = true;
        reject(new ControlPlaneError("BadRequest", `error reading request body: ${error.message}`, { cause: error }));
      }
    });
  });
}
