import { Agent as HttpAgent, request as httpRequest, type AgentOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest, type AgentOptions as HttpsAgentOptions } from "node:https";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";

type ConnectCallback = (error: Error | null, socket: Duplex) => void;
type SocketOptions = { host?: string | null | undefined; port?: number | string | null | undefined };

/** Node's agents take a failed connection as `callback(error)` without a socket. */
const noSocket = undefined as unknown as Duplex;

/** A tunnel to `host:port` through the proxy: an HTTP CONNECT, the proxy's credentials from its URL. */
function tunnel(proxy: URL, host: string, port: number, callback: (error: Error | null, socket?: Duplex) => void): void {
  const headers: Record<string, string> = { Host: `${host}:${port}` };
  if (proxy.username !== "") {
    headers["Proxy-Authorization"] =
      `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}`;
  }
  const request = (proxy.protocol === "https:" ? httpsRequest : httpRequest)({
    host: proxy.hostname.replace(/^\[|\]$/g, ""),
    port: proxy.port === "" ? (proxy.protocol === "https:" ? 443 : 80) : Number(proxy.port),
    method: "CONNECT",
    path: `${host.includes(":") ? `[${host}]` : host}:${port}`,
    headers,
  });
  request.once("connect", (response, socket) => {
    if (response.statusCode === 200) callback(null, socket);
    else {
      socket.destroy();
      callback(
        new Error(
          `proxy ${proxy.origin} refused the tunnel to ${host}:${port}: ${response.statusCode} ${response.statusMessage ?? ""}`.trim(),
        ),
      );
    }
  });
  request.once("error", (error) => callback(new Error(`proxy ${proxy.origin}: ${error.message}`, { cause: error })));
  request.end();
}

/**
 * An agent that reaches every server through `proxyUrl` with HTTP CONNECT, as client-go's
 * transport does for an https server; TLS to the server runs inside the tunnel with `tls`.
 */
export function proxyAgent(proxyUrl: string, secure: boolean, tls: HttpsAgentOptions): HttpAgent {
  const proxy = new URL(proxyUrl);
  if (secure) {
    return new (class extends HttpsAgent {
      override createConnection(options: SocketOptions, callback?: ConnectCallback): Duplex | null | undefined {
        tunnel(proxy, options.host ?? "localhost", Number(options.port ?? 443), (error, socket) => {
          if (error !== null || socket === undefined) return callback?.(error ?? new Error("proxy tunnel failed"), noSocket);
          // https.Agent's own connection (its TLS options and session cache) over the tunnel.
          const secured = HttpsAgent.prototype.createConnection.call(this, { ...options, socket } as never) as unknown as TLSSocket;
          // Errors after the handshake belong to the request using the socket, not to this callback.
          const failed = (tlsError: Error) => callback?.(tlsError, noSocket);
          secured.once("error", failed);
          secured.once("secureConnect", () => {
            secured.off("error", failed);
            callback?.(null, secured);
          });
        });
        return undefined;
      }
    })({ ...tls, keepAlive: true });
  }
  return new (class extends HttpAgent {
    override createConnection(options: SocketOptions, callback?: ConnectCallback): Duplex | null | undefined {
      tunnel(proxy, options.host ?? "localhost", Number(options.port ?? 80), (error, socket) =>
        error !== null || socket === undefined ? callback?.(error ?? new Error("proxy tunnel failed"), noSocket) : callback?.(null, socket),
      );
      return undefined;
    }
  })({ keepAlive: true } satisfies AgentOptions);
}
