import { createSocket, type RemoteInfo, type Socket as UdpSocket } from "node:dgram";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import type { ProxyEndpoint } from "./service-endpoints.js";

/** Where one new connection or flow goes, and the source address it comes from there. */
export interface Target {
  endpoint: ProxyEndpoint;
  localAddress: string;
}

/** Chooses a target for a client, or undefined to refuse (TCP) or drop (UDP) it. */
export type Choose = (clientIP: string) => Target | undefined;

/** A bound service address (a ClusterIP or a node's NodePort) that forwards to endpoints. */
export interface Forwarder {
  /** Ends UDP flows to endpoints `keep` no longer accepts (kube-proxy clears their conntrack entries). */
  prune(keep: (endpoint: ProxyEndpoint) => boolean): void;
  close(): Promise<void>;
}

/** conntrack's timeout for a UDP flow without traffic. */
export const UDP_FLOW_IDLE_MS = 30_000;

/**
 * TCP, userspace-proxy style: each accepted connection is joined to a new connection to the
 * chosen endpoint, opened from the target's local address. No target: the connection is reset.
 */
export async function startTcpForwarder(ip: string, port: number, choose: Choose): Promise<Forwarder> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  // Half-open both ways: a client that shuts down its side after sending still gets the answer.
  const server = createServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => {
    track(client);
    client.on("error", () => undefined);
    const target = choose(client.remoteAddress ?? "");
    if (target === undefined) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({
      host: target.endpoint.ip,
      port: target.endpoint.port,
      localAddress: target.localAddress,
      allowHalfOpen: true,
    });
    track(upstream);
    upstream.on("error", () => client.resetAndDestroy());
    upstream.on("connect", () => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    client.on("close", () => upstream.destroy());
  });
  server.listen({ host: ip, port, exclusive: true });
  await Promise.race([once(server, "listening"), once(server, "error").then(([error]) => Promise.reject(error as Error))]);
  return {
    prune: () => undefined,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

interface Flow {
  upstream: UdpSocket;
  endpoint: ProxyEndpoint;
  timer: NodeJS.Timeout;
  /** Datagrams that arrived before the upstream socket was connected. */
  pending: Buffer[] | undefined;
}

/**
 * UDP, conntrack style: the first datagram from a client address opens a flow (a socket from the
 * target's local address connected to the chosen endpoint); replies go back to the client from
 * the service address; a flow ends after `idleMs` without traffic. No target: dropped.
 */
export async function startUdpForwarder(ip: string, port: number, choose: Choose, idleMs = UDP_FLOW_IDLE_MS): Promise<Forwarder> {
  const socket = createSocket("udp4");
  const flows = new Map<string, Flow>();
  const end = (key: string) => {
    const flow = flows.get(key);
    if (flow === undefined) return;
    flows.delete(key);
    clearTimeout(flow.timer);
    flow.upstream.close();
  };
  const open = (key: string, peer: RemoteInfo, target: Target, first: Buffer): void => {
    const upstream = createSocket("udp4");
    const flow: Flow = { upstream, endpoint: target.endpoint, timer: setTimeout(() => end(key), idleMs), pending: [first] };
    flows.set(key, flow);
    upstream.on("error", () => end(key));
    upstream.on("message", (reply) => {
      flow.timer.refresh();
      socket.send(reply, peer.port, peer.address);
    });
    upstream.bind({ address: target.localAddress, port: 0 }, () => {
      upstream.connect(target.endpoint.port, target.endpoint.ip, () => {
        for (const datagram of flow.pending ?? []) upstream.send(datagram);
        flow.pending = undefined;
      });
    });
  };
  socket.on("message", (message, peer) => {
    const key = `${peer.address}:${peer.port}`;
    const flow = flows.get(key);
    if (flow !== undefined) {
      flow.timer.refresh();
      if (flow.pending !== undefined) flow.pending.push(message);
      else flow.upstream.send(message);
      return;
    }
    const target = choose(peer.address);
    if (target !== undefined) open(key, peer, target, message);
  });
  socket.on("error", () => undefined);
  socket.bind({ address: ip, port, exclusive: true });
  await Promise.race([once(socket, "listening"), once(socket, "error").then(([error]) => Promise.reject(error as Error))]);
  return {
    prune(keep) {
      for (const [key, flow] of flows) if (!keep(flow.endpoint)) end(key);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const key of [...flows.keys()]) end(key);
        socket.close(() => resolve());
      }),
  };
}
