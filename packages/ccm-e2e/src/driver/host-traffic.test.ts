import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { hostTraffic } from "./host-traffic.js";

describe("hostTraffic", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function httpServer(): Promise<number> {
    const server: Server = createServer((req, res) => res.end(`${req.url} ${req.headers.connection}`));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    return (server.address() as AddressInfo).port;
  }

  async function udpEcho(): Promise<{ port: number; sources: number[] }> {
    const socket: Socket = createSocket("udp4");
    const sources: number[] = [];
    socket.on("message", (message, from) => {
      sources.push(from.port);
      socket.send(`echo ${message.toString()}`, from.port, from.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => socket.close(() => resolve())));
    return { port: socket.address().port, sources };
  }

  it("answers an HTTP GET on a fresh connection", async () => {
    const port = await httpServer();
    await expect(hostTraffic.httpGet("127.0.0.1", port, "/hostname", { timeoutMs: 2000 })).resolves.toEqual({
      status: 200,
      body: "/hostname close",
    });
  });

  it("rejects when nothing listens", async () => {
    const port = await httpServer();
    await closers.pop()!();
    await expect(hostTraffic.httpGet("127.0.0.1", port, "/", { timeoutMs: 2000 })).rejects.toThrow(/ECONNREFUSED/);
  });

  it("exchanges a datagram, from a fixed source port when asked", async () => {
    const echo = await udpEcho();
    await expect(hostTraffic.udpExchange("127.0.0.1", echo.port, "hostname", { timeoutMs: 2000 })).resolves.toBe("echo hostname");
    const probe = createSocket("udp4");
    await new Promise<void>((resolve) => probe.bind(0, "127.0.0.1", resolve));
    const free = probe.address().port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await hostTraffic.udpExchange("127.0.0.1", echo.port, "x", { timeoutMs: 2000, srcPort: free });
    expect(echo.sources.at(-1)).toBe(free);
  });

  it("rejects when no UDP answer comes in time", async () => {
    const silent = createSocket("udp4");
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => silent.close(() => resolve())));
    await expect(hostTraffic.udpExchange("127.0.0.1", silent.address().port, "x", { timeoutMs: 150 })).rejects.toThrow(
      /no UDP answer .* within 150 ms/,
    );
  });
});
