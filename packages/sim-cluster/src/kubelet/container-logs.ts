import type { Container } from "../resources/pod-spec.js";
import { containerOutput } from "./container-exit.js";
import { agnhostArgs, listensOf } from "../traffic/echo-ports.js";

/** One line a container wrote, and when (the CRI log's timestamp). */
export interface LogLine {
  time: Date;
  text: string;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/** A klog header as agnhost writes it (`I1129 04:27:28.123456       1 log.go:195] `): agnhost sends Go's log package through klog. */
function klogLine(time: Date, message: string): string {
  const micros = pad(time.getUTCMilliseconds() * 1000, 6);
  const stamp = `${pad(time.getUTCMonth() + 1, 2)}${pad(time.getUTCDate(), 2)} ${pad(time.getUTCHours(), 2)}:${pad(time.getUTCMinutes(), 2)}:${pad(time.getUTCSeconds(), 2)}.${micros}`;
  return `I${stamp}       1 log.go:195] ${message}`;
}

/** What agnhost netexec and serve-hostname print once they listen, as the real binaries do. */
function agnhostStartup(container: Container, time: Date): string[] {
  const agnhost = agnhostArgs(container);
  if (agnhost?.[0] === "netexec") {
    return listensOf(container).map((l) =>
      klogLine(time, l.protocol === "TCP" ? `Started HTTP server on port ${l.port}` : `Started UDP server on port  ${l.port}`),
    );
  }
  if (agnhost?.[0] === "serve-hostname") {
    const port = listensOf(container)[0]?.port;
    return port === undefined ? [] : [klogLine(time, `Serving on port ${port}.`)];
  }
  return [];
}

/**
 * The log of one run of a simulated container that started at `startedAt`: agnhost's startup
 * lines, or what the `echo`s of its command print (see `containerOutput`). Every line carries the
 * run's start time.
 */
export function runLog(container: Container, startedAt: Date): LogLine[] {
  const lines = [...agnhostStartup(container, startedAt), ...containerOutput(container)];
  return lines.map((text) => ({ time: startedAt, text }));
}

/** The kubelet's `timestamps=true` prefix: RFC 3339 with nanoseconds, always nine digits. */
export function logTimestamp(time: Date): string {
  return `${time.toISOString().slice(0, 19)}.${pad(time.getUTCMilliseconds(), 3)}000000Z`;
}
