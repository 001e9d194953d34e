import { createSocket } from "node:dgram";
import { request } from "node:http";

/** One HTTP GET, optionally from a given local address; rejects with the socket error (ECONNREFUSED, ECONNRESET). */
export function httpGet(host: string, port: number, path: string, localAddress?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port, path, agent: false, timeout: 5_000, ...(localAddress !== undefined ? { localAddress } : {}) },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        response.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end();
  });
}

/** The error code an HTTP GET fails with, or undefined when it succeeds. */
export async function httpFailure(host: string, port: number, path: string): Promise<string | undefined> {
  try {
    await httpGet(host, port, path);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

/** Sends one datagram from a connected socket and resolves with the first reply; rejects on an ICMP error (ECONNREFUSED) or after `timeoutMs`. */
export function udpAsk(host: string, port: number, message: string, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createSocket("udp4");
    const timer = setTimeout(() => finish(new Error("no UDP reply")), timeoutMs);
    const finish = (error: Error | undefined, reply?: string) => {
      clearTimeout(timer);
      socket.close();
      if (error !== undefined) reject(error);
      else resolve(reply ?? "");
    };
    socket.on("error", (error) => finish(error));
    socket.on("message", (reply) => finish(undefined, reply.toString("utf8")));
    socket.connect(port, host, () => socket.send(message));
  });
}
