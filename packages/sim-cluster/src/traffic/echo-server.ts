import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { once } from "node:events";
import type { ResolveHost } from "./cluster-dns.js";
import type { EchoListen } from "./echo-ports.js";
import { isLoopback } from "./loopback.js";

/** A listening echo server; `close` ends it and every connection it holds. */
export interface EchoServer {
  close(): Promise<void>;
}

function remote(address: string | undefined, port: number | undefined): string {
  return address?.includes(":") ? `[${address}]:${port ?? 0}` : `${address ?? ""}:${port ?? 0}`;
}

/** Where a pod's own requests start from and how it resolves names. */
export interface PodNetwork {
  /** The pod's IP: its outgoing connections and datagrams leave from it. */
  ip: string;
  resolve: ResolveHost;
}

/** agnhost netexec's HTTP endpoints that need no shell or filesystem. */
function netexecHttp(hostname: () => string, network: PodNetwork): HttpServer {
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
      case "/dial":
        void dial(url.searchParams, network).then(
          ({ status, body }) => {
            response.statusCode = status;
            response.end(body);
          },
          () => {
            response.statusCode = 500;
            response.end();
          },
        );
        return;
      default:
        response.end(`NOW: ${new Date().toISOString()}`);
    }
  });
}

/** How long one attempt of `/dial` waits, as netexec's client does. */
const DIAL_TIMEOUT_MS = 5_000;

/**
 * One attempt of netexec's `/dial` from the pod's address: the answer, or Go's error text. Names
 * resolve through cluster DNS; only loopback addresses are dialled: the sim cluster's pods,
 * nodes and ClusterIPs.
 */
async function dialOnce(protocol: string, name: string, port: number, request: string, network: PodNetwork): Promise<string> {
  const namePort = name.includes(":") ? `[${name}]:${port}` : `${name}:${port}`;
  const host = network.resolve(name);
  if (host === undefined)
    throw new Error(
      protocol === "udp"
        ? `udp dial failed. err:dial udp: lookup ${name}: no such host`
        : `Get "http://${namePort}/${request}": dial tcp: lookup ${name}: no such host`,
    );
  const hostPort = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  if (!isLoopback(host))
    throw new Error(
      protocol === "udp"
        ? `udp dial failed. err:dial udp ${hostPort}: connect: network is unreachable`
        : `Get "http://${namePort}/${request}": dial tcp ${hostPort}: connect: network is unreachable`,
    );
  const localAddress = isLoopback(network.ip) ? network.ip : undefined;
  if (protocol === "udp") {
    const socket = createSocket("udp4");
    try {
      socket.bind({ port: 0, ...(localAddress !== undefined ? { address: localAddress } : {}) });
      await once(socket, "listening");
      socket.connect(port, host);
      await once(socket, "connect");
      socket.send(request);
      const reply = await Promise.race([
        once(socket, "message").then(([message]) => (message as Buffer).toString("utf8")),
        once(socket, "error").then(([error]) => Promise.reject(error as Error)),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("i/o timeout")), DIAL_TIMEOUT_MS).unref()),
      ]);
      return reply;
    } catch (error) {
      throw new Error(
        `reading from udp connection failed. err:'read udp ${hostPort}: ${(error as NodeJS.ErrnoException).code === "ECONNREFUSED" ? "recvfrom: connection refused" : (error as Error).message}'`,
        { cause: error },
      );
    } finally {
      socket.close();
    }
  }
  const url = `http://${namePort}/${request}`;
  try {
    return await httpGetFrom(`http://${hostPort}/${request}`, localAddress);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      `Get "${url}": ${code === "ECONNREFUSED" ? `dial tcp ${hostPort}: connect: connection refused` : code === "ECONNRESET" ? "read: connection reset by peer" : "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}`,
      { cause: error },
    );
  }
}

/** A GET from `localAddress` (as Go's client, one connection, no keep-alive), its body or the socket error. */
function httpGetFrom(url: string, localAddress: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { agent: false, timeout: DIAL_TIMEOUT_MS, headers: { connection: "close" }, ...(localAddress !== undefined ? { localAddress } : {}) },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve(body));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })));
    req.on("error", reject);
    req.end();
  });
}

/**
 * netexec's `/dial?host=&port=&request=&protocol=http|udp&tries=`: `tries` attempts from this pod,
 * answered as `{"responses":[…],"errors":[…]}` — how upstream's e2e tests reach ClusterIPs and pods
 * from inside the cluster.
 */
async function dial(query: URLSearchParams, network: PodNetwork): Promise<{ status: number; body: string }> {
  const host = query.get("host") ?? "";
  const port = Number(query.get("port") ?? "");
  const request = query.get("request") ?? "";
  const protocol = (query.get("protocol") ?? "").toLowerCase();
  const triesParam = query.get("tries") ?? "";
  const tries = triesParam === "" ? 1 : Number(triesParam);
  if (!Number.isInteger(tries))
    return { status: 400, body: `tries parameter is invalid. strconv.Atoi: parsing ${JSON.stringify(triesParam)}: invalid syntax\n` };
  if (request === "") return { status: 400, body: "request parameter not specified. <nil>\n" };
  if (protocol !== "" && protocol !== "http" && protocol !== "udp") return { status: 400, body: `unsupported protocol. ${protocol}\n` };
  if (host === "" || !Number.isInteger(port) || port <= 0 || port > 65535)
    return { status: 400, body: "host and/or port param are invalid.\n" };
  const responses: string[] = [];
  const errors: string[] = [];
  let last = "";
  for (let i = 0; i < tries; i++) {
    try {
      last = await dialOnce(protocol === "udp" ? "udp" : "http", host, port, request, network);
      responses.push(last);
    } catch (error) {
      last = "";
      errors.push((error as Error).message);
    }
  }
  const output: Record<string, string[]> = {};
  if (last.length > 0) output["responses"] = responses;
  if (errors.length > 0) output["errors"] = errors;
  return { status: 200, body: JSON.stringify(output) };
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
export async function startEchoServer(ip: string, listen: EchoListen, hostname: () => string, resolve: ResolveHost): Promise<EchoServer> {
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
  const server =
    listen.style === "netexec"
      ? netexecHttp(hostname, { ip, resolve })
      : createHttpServer((_request, response) => response.end(hostname()));
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
