import { Socket } from "node:net";
import { isControlPlaneError } from "../../api/errors/control-plane-error.js";
import type { KubeObject, StatusCause, WatchEvent } from "../../api/types.js";
import type { ResourceWatch, WatchRequest } from "../../registry/types.js";
import type { RequestContext } from "../context.js";
import { drainedOrClosed } from "./responsewriters/drain.js";
import type { HandlerEnv } from "../handler-env.js";
import type { ResponseFormat } from "./negotiation/negotiation.js";
import { isTrue, parseBool, type ResourceRequestInfo } from "../request-info.js";
import { setLongTimeout } from "../long-timeout.js";
import { includeObjectOf, shapeObject } from "./responsewriters/respond.js";
import type { RequestScope } from "../request-scope.js";
import { toStatus } from "./responsewriters/status.js";
import type { TrackedWatch } from "../watch-tracker.js";
import { optionsInvalid } from "./options/write-options.js";
import { parseInt64Query } from "./options/query-numbers.js";
import { stringifyExactJson } from "../../api/exact-json.js";

/**
 * Serialised JSON lines per event object, as UTF-8: the registry hands the same event object to
 * every watcher of a resource, so a change fanned out to many watchers is serialised and encoded
 * once, and the same bytes are written to every watcher.
 */
const encodedEvents = new WeakMap<object, Buffer>();

/**
 * A watcher whose socket has this much unsent data is too slow to keep up: its stream is ended
 * (the client re-watches from its last resourceVersion), as kube-apiserver's cacher drops lagging
 * watchers rather than buffering without bound.
 */
export const MAX_WATCH_BACKLOG_BYTES = 16 * 1024 * 1024;

function encodeEvent(event: WatchEvent): Buffer {
  let line = encodedEvents.get(event);
  if (line === undefined) {
    line = Buffer.from(stringifyExactJson(event) + "\n");
    encodedEvents.set(event, line);
  }
  return line;
}

/**
 * The same line as one HTTP/1.1 chunk (size, line, CRLF), also built once per event. A chunked
 * watch writes it straight to its socket: one buffer and one write per watcher, where a response
 * write would frame each event again and hand the kernel four pieces. Fan-out to many watchers is
 * bound by those writes.
 */
const framedEvents = new WeakMap<object, Buffer>();

function framedEvent(event: WatchEvent): Buffer {
  let chunk = framedEvents.get(event);
  if (chunk === undefined) {
    // Encoded straight into the chunk: no second copy of the line as a string.
    const json = stringifyExactJson(event);
    const size = Buffer.byteLength(json) + 1;
    const header = `${size.toString(16)}\r\n`;
    chunk = Buffer.allocUnsafe(header.length + size + 2);
    let at = chunk.write(header, "latin1");
    at += chunk.write(json, at, "utf8");
    chunk.write("\n\r\n", at, "latin1");
    framedEvents.set(event, chunk);
  }
  return chunk;
}

export function parseWatchRequest(
  ctx: RequestContext,
  info: ResourceRequestInfo,
): { request: WatchRequest; timeoutSeconds: number | undefined } {
  const query = ctx.query;
  const request: WatchRequest = {};
  const labelSelector = query.get("labelSelector");
  if (labelSelector) request.labelSelector = labelSelector;
  let fieldSelector = query.get("fieldSelector") ?? "";
  if (info.name !== "") fieldSelector = fieldSelector === "" ? `metadata.name=${info.name}` : `${fieldSelector},metadata.name=${info.name}`;
  if (fieldSelector !== "") request.fieldSelector = fieldSelector;
  const rv = query.get("resourceVersion");
  if (rv !== null && rv !== "") request.resourceVersion = rv;
  if (isTrue(query.get("allowWatchBookmarks"))) request.allowWatchBookmarks = true;

  const causes: StatusCause[] = [];
  const rawInitial = query.get("sendInitialEvents");
  const match = query.get("resourceVersionMatch");
  if (rawInitial !== null && rawInitial !== "") {
    const initial = parseBool(rawInitial);
    if (initial === undefined) {
      causes.push({
        reason: "FieldValueInvalid",
        field: "sendInitialEvents",
        message: `Invalid value: ${JSON.stringify(rawInitial)}: must be a boolean`,
      });
    } else {
      if (match !== "NotOlderThan") {
        causes.push({
          reason: "FieldValueForbidden",
          field: "sendInitialEvents",
          message: "Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan",
        });
      }
      if (!request.allowWatchBookmarks) {
        causes.push({
          reason: "FieldValueForbidden",
          field: "allowWatchBookmarks",
          message: "Forbidden: allowWatchBookmarks must be set to true when sendInitialEvents is requested",
        });
      }
      request.sendInitialEvents = initial;
      if (match === "NotOlderThan") request.resourceVersionMatch = "NotOlderThan";
    }
  } else if (match !== null && match !== "") {
    causes.push({
      reason: "FieldValueForbidden",
      field: "resourceVersionMatch",
      message: "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    });
  }
  // A watch decodes the same ListOptions as a LIST, so a malformed limit is refused here too.
  const limit = query.get("limit");
  if (limit !== null) parseInt64Query(limit);
  let timeoutSeconds: number | undefined;
  const rawTimeout = query.get("timeoutSeconds");
  if (rawTimeout !== null) {
    const n = parseInt64Query(rawTimeout);
    if (n < 0)
      causes.push({
        reason: "FieldValueInvalid",
        field: "timeoutSeconds",
        message: `Invalid value: ${JSON.stringify(rawTimeout)}: must be a non-negative integer`,
      });
    else if (n > 0) timeoutSeconds = n;
  }
  if (causes.length > 0) throw optionsInvalid("ListOptions", causes);
  return { request, timeoutSeconds };
}

/**
 * A watch stream: chunked `application/json`, one `{"type","object"}` per line, flushed per
 * event. Ends after `timeoutSeconds` (the client re-watches from its last resourceVersion),
 * when the client goes away, or on shutdown. A resourceVersion that is too old yields one ERROR
 * event carrying a 410 Expired Status, which is what client-go, client-node and python expect.
 */
export async function handleWatch(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const { request, timeoutSeconds } = parseWatchRequest(ctx, info);
  const includeObject = includeObjectOf(ctx.query);
  const { res, req } = ctx;
  const definition = scope.definition;
  const table = format.type === "table" || format.type === "partial";
  ctx.longRunning = true;

  let ended = false;
  let watch: ResourceWatch | undefined;
  const tracked: TrackedWatch = { group: definition.group, version: definition.version, kind: definition.kind, end: () => finish() };

  // HTTP/1.0 has no chunked framing: the stream is sent as is and ends when the connection closes.
  const chunked = req.httpVersion !== "1.0";
  // Chunked events go to the socket itself once the headers are out (they are queued on it first,
  // and the response's closing chunk after the events), so order is kept.
  let direct: Socket | undefined;
  const startStream = (): void => {
    if (res.headersSent) return;
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Cache-Control": "no-cache, private",
      ...(chunked ? { "Transfer-Encoding": "chunked" } : {}),
    });
    res.flushHeaders();
    // Only a connection's own socket: a response simulated in-process has a stand-in that drops what it is given.
    if (chunked && !table && res.socket instanceof Socket) direct = res.socket;
  };
  const finish = (): void => {
    if (ended) return;
    ended = true;
    stopTimer();
    watch?.stop();
    env.watches.delete(tracked);
    startStream();
    res.end();
  };
  const send = (event: WatchEvent): void => {
    if (ended) return;
    startStream();
    if (table && event.type !== "ERROR" && event.type !== "BOOKMARK") {
      const shaped = { type: event.type, object: shapeObject(event.object, format, scope, includeObject) };
      res.write(stringifyExactJson(shaped) + "\n");
    } else if (direct !== undefined) {
      direct.write(framedEvent(event));
    } else {
      res.write(encodeEvent(event));
    }
    if (res.writableLength + (direct?.writableLength ?? 0) > MAX_WATCH_BACKLOG_BYTES) finish();
  };
  const sendError = (error: unknown): void => {
    send({ type: "ERROR", object: toStatus(error) as unknown as KubeObject });
    finish();
  };

  req.on("close", finish);
  res.on("close", finish);
  env.watches.add(tracked);
  const seconds = timeoutSeconds ?? env.minRequestTimeoutSeconds * (1 + Math.random());
  // Upstream honours any timeoutSeconds; a long one must not overflow Node's timer and end at once.
  const stopTimer = setLongTimeout(finish, seconds * 1000);
  request.deadline = Date.now() + seconds * 1000;

  try {
    watch = await scope.store.watch(
      info.namespace,
      request,
      send,
      (error) => {
        if (error) sendError(error);
        else finish();
      },
      // Initial events and history go out a page at a time, each once the socket took the last.
      { whenReady: () => (ended || !(direct ?? res).writableNeedDrain ? undefined : drainedOrClosed(direct ?? res)) },
    );
    ctx.watchInitialized?.();
  } catch (error) {
    if (isControlPlaneError(error) && (error.code === "Expired" || error.code === "Gone")) {
      startStream();
      sendError(error);
      return;
    }
    ended = true;
    stopTimer();
    env.watches.delete(tracked);
    throw error;
  }
  if (ended) {
    watch.stop();
    return;
  }
  startStream();
}
