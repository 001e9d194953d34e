import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Connections whose request could not be parsed (node's `clientError`). Node answers and resets
 * the connection at once; when a header block overflows, the client is usually still sending it,
 * so the reset reaches it before the 431 and it sees ECONNRESET instead. Go's `http.Server`
 * answers 431 and closes its side only, reading on until the client closes; this does the same:
 * the answer, a half close, the rest of the request read and dropped, the socket destroyed after
 * a grace period (Go's `rstAvoidanceDelay`, 500 ms). Every other error gets node's own answer.
 */

const RST_AVOIDANCE_DELAY_MS = 500;

const HEADER_TOO_LARGE = "431 Request Header Fields Too Large";
const headerTooLargeResponse = `HTTP/1.1 ${HEADER_TOO_LARGE}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${HEADER_TOO_LARGE}`;

/** Node's answers to the other parse errors (`lib/_http_server.js`). */
function nodeResponse(code: string | undefined): string {
  const status = code === "HPE_CHUNK_EXTENSIONS_OVERFLOW" ? 413 : code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;
}

/** Sockets answered 431 and draining: the parser reports every further chunk of them as an error too. */
const draining = new WeakSet<Duplex>();

/**
 * A socket as node's HTTP server holds it: `_httpMessage` is the response being written on it, if
 * any (node has kept that name since 0.x). Between two requests of a kept-alive connection there
 * is none, and the 431 is the next thing the client reads, as from Go.
 */
type ServerSocket = Duplex & { bytesWritten?: number; _httpMessage?: unknown };

export function answerClientError(error: Error & { code?: string }, socket: ServerSocket): void {
  if (draining.has(socket)) return;
  const unanswered = socket.writable && (socket.bytesWritten ?? 0) === 0;
  const betweenResponses = socket.writable && (socket._httpMessage ?? null) === null;
  if (betweenResponses && error.code === "HPE_HEADER_OVERFLOW") {
    draining.add(socket);
    socket.end(headerTooLargeResponse);
    socket.resume();
    setTimeout(() => socket.destroy(), RST_AVOIDANCE_DELAY_MS).unref();
    return;
  }
  if (unanswered) socket.write(nodeResponse(error.code));
  socket.destroy(error);
}
