import { createSocket } from "node:dgram";
import { request } from "node:http";
import { isIPv6 } from "node:net";
import type { ProbeOptions, ProbeResponse, TrafficClient } from "./types.js";

/**
 * The test host as the vantage point (what upstream's `TestReachableHTTP` uses): plain sockets
 * from this process, a fresh connection per request (no keep-alive, as the rolling update test
 * requires), each bounded by its timeout.
 */
export const hostTraffic: TrafficClient = {
  httpGet(host: string, port: number, path: string, options: ProbeOptions): Promise<ProbeResponse> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host, port, path, method: "GET", agent: false, timeout: options.timeoutMs, headers: { connection: "close" } },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer from ${host}:${port} within ${options.timeoutMs} ms`)));
      req.on("error", reject);
      req.end();
    });
  },

  udpExchange(host: string, port: number, payload: string, options: ProbeOptions & { srcPort?: number }): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = createSocket({ type: isIPv6(host) ? "udp6" : "udp4", reuseAddr: options.srcPort !== undefined });
      const finish = (error: Error | undefined, answer?: string) => {
        clearTimeout(timer);
        socket.close();
        if (error) reject(error);
        else resolve(answer!);
      };
      const timer = setTimeout(
        () => finish(new Error(`no UDP answer from ${host}:${port} within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      socket.on("error", (error) => finish(error));
      socket.on("message", (message) => finish(undefined, message.toString("utf8")));
      socket.bind(options.srcPort ?? 0, () => socket.send(payload, port, host));
    });
  },
};
