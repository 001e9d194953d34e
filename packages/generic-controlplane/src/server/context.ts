import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ANONYMOUS, type UserInfo } from "./access-reviews.js";
import type { RequestInfo } from "./request-info.js";
import { BUILTIN_PROTOBUF, type ProtobufMessages } from "../protobuf/message-types.js";

/** One request as it travels through the handler chain. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Filled by the `request-info` stage. */
  info: RequestInfo | undefined;
  /** `Warning` headers to send with the response (already quoted as `299 - "..."`). */
  readonly warnings: string[];
  /** Audit annotations added while serving the request (admission webhooks add theirs), by key. */
  readonly auditAnnotations: Record<string, string>;
  /** Whether the request is a dry run, for metrics. */
  dryRun: boolean;
  /** Who sent the request: `system:anonymous` until the authentication filter says otherwise (and impersonation replaces it). */
  user: UserInfo;
  /** The protobuf messages of the server serving the request: the built-in kinds and those registered with it. */
  readonly protobuf: ProtobufMessages;
  /** `process.hrtime.bigint()` at arrival. */
  readonly startedAt: bigint;
  /** Sent as the `Audit-Id` response header and logged with the request. */
  readonly auditID: string;
  /** Long-running requests (watch) are not counted as in flight for shutdown waiting and close their own stream. */
  longRunning: boolean;
  /**
   * Set by flow control for a watch: the handler calls it once the watch is set up and its
   * initial events are sent, which frees the seat the watch held while doing that work.
   */
  watchInitialized?: () => void;
}

export function createContext(req: IncomingMessage, res: ServerResponse, protobuf: ProtobufMessages = BUILTIN_PROTOBUF): RequestContext {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return {
    req,
    res,
    method: req.method ?? "GET",
    path: q < 0 ? url : url.slice(0, q),
    query: new URLSearchParams(q < 0 ? "" : url.slice(q + 1)),
    info: undefined,
    warnings: [],
    auditAnnotations: {},
    dryRun: false,
    user: ANONYMOUS,
    protobuf,
    startedAt: process.hrtime.bigint(),
    auditID: randomUUID(),
    longRunning: false,
  };
}
