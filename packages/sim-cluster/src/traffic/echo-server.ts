import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { once } from "node:events";
import type { EchoListen } from "./echo-ports.js";

/** A listening echo server; `close` ends it and every connection it holds. */
export interface EchoServer {
  close(): Promise<void>;
}

function remote(address: string | undefined, port: number | undefined): string {
  return address?.includes(":") ? `[${address}]:${port ?? 0}` : `${address ?? ""}:${port ?? 0}`;
}

/** agnhost netexec's HTTP endpoints that need no shell or filesystem. */
function netexecHttp(hostname: () => string): HttpServer {
  return createHttpServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://pod");
    switch (url.pathname) {
      case "/hostname":
      case "/hostName":
        response.end(hostname());
        return;
      case "/clientip":
        response.end(remote(request.socket.remoteAddress, request.socket.remotePort));
        return;
      case "/echo": {
        const code = url.searchParams.get("code") ?? "";
        if (code !== "") {
          const status = Number(code);
          if (!Number.isInteger(status)) {
            response.end(`argument 'code' must be an integer or empty, got ${JSON.stringify(code)}\n`);
            return;
          }
          response.statusCode = status;
        }
        response.end(url.searchParams.get("msg") ?? "");
        return;
      }
      case "/healthz":
        response.end();
        return;
      default:
        response.end(`NOW: ${new Date().toISOString()}`);
    }
  });
}

/** netexec's UDP commands: `hostname`, `echo <msg>`, `clientip`; anything else gets no answer. */
function netexecUdp(hostname: () => string): UdpSocket {
  const socket = createSocket("udp4");
  socket.on("message", (message, peer) => {
    const text = message.toString("utf8").trim().toLowerCase();
    let reply: string | undefined;
    if (text === "hostname") reply = hostname();
    else if (text.startsWith("echo ")) reply = text.slice("echo ".length);
    else if (text === "clientip") reply = remote(peer.address, peer.port);
    if (reply !== undefined) socket.send(reply, peer.port, peer.address);
  });
  return socket;
}

async function listenTcp(server: HttpServer | TcpServer, host: string, port: number): Promise<void> {
  server.listen({ host, port, exclusive: true });
  await Promise.race([once(server, "listening"), once(server, "error").then(([error]) => Promise.reject(error as Error))]);
}

/** Starts one of a pod's servers on `ip`. */
export async function startEchoServer(ip: string, listen: EchoListen, hostname: () => string): Promise<EchoServer> {
  if (listen.protocol === "UDP") {
    const socket = netexecUdp(hostname);
    socket.bind({ address: ip, port: listen.port, exclusive: true });
    await Promise.race([once(socket, "listening"), once(socket, "error").then(([error]) => Promise.reject(error as Error))]);
    return { close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
  }
  if (listen.style === "serve-hostname-tcp") {
    const server = createTcpServer((socket) => socket.end(hostname()));
    await listenTcp(server, ip, listen.port);
    return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  const server = listen.style === "netexec" ? netexecHttp(hostname) : createHttpServer((_request, response) => response.end(hostname()));
  await listenTcp(server, ip, listen.port);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A container that stops takes its connections with it.
        server.closeAllConnections();
      }),
  };
}
