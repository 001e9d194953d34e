import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { connect, createServer, type Server, type Socket } from "node:net";

/** Where a listener sends a flow: a node's NodePort, or a pod's target port. */
export interface Target {
  /** The backend's name (the node, or the pod), for affinity and the cloud's own view. */
  name: string;
  address: string;
  port: number;
}

/** Picks the target of a new connection or flow from the client's address. */
export type PickTarget = (clientAddress: string) => Target | undefined;

const UDP_FLOW_IDLE_MS = 30_000;

/** One listener of a load balancer: TCP or UDP on the VIP's port, forwarding each flow to a target. */
export interface Listener {
  close(): Promise<void>;
}

/**
 * A TCP listener: each connection goes to the target `pick` chooses, from the client's own
 * address (the source is kept, as a VIP-mode load balancer does), or is reset when there is none.
 */
export async function tcpListener(address: string, port: number, pick: PickTarget): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const target = pick(client.remoteAddress ?? "");
    if (target === undefined) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: target.address, port: target.port, localAddress: client.remoteAddress });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.resetAndDestroy());
    client.on("close", () => upstream.destroy());
    upstream.pipe(client);
    client.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A UDP listener: one upstream socket per client flow, bound to the client's address; answers are relayed back. */
export async function udpListener(address: string, port: number, pick: PickTarget): Promise<Listener> {
  const socket: UdpSocket = createSocket("udp4");
  const flows = new Map<string, { upstream: UdpSocket; target: Target; timer: NodeJS.Timeout }>();
  const endFlow = (key: string) => {
    const flow = flows.get(key);
    if (flow === undefined) return;
    flows.delete(key);
    clearTimeout(flow.timer);
    flow.upstream.close();
  };
  socket.on("message", (message, from) => {
    const key = `${from.address}:${from.port}`;
    let flow = flows.get(key);
    if (flow === undefined) {
      const target = pick(from.address);
      if (target === undefined) return;
      const upstream = createSocket("udp4");
      upstream.on("error", () => endFlow(key));
      upstream.on("message", (answer) => socket.send(answer, from.port, from.address));
      flow = { upstream, target, timer: setTimeout(() => endFlow(key), UDP_FLOW_IDLE_MS).unref() };
      flows.set(key, flow);
      const current = flow;
      upstream.bind(0, from.address, () => current.upstream.send(message, current.target.port, current.target.address));
      return;
    }
    flow.timer.refresh();
    flow.upstream.send(message, flow.target.port, flow.target.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, address, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const key of [...flows.keys()]) endFlow(key);
        socket.close(() => resolve());
      }),
  };
}
