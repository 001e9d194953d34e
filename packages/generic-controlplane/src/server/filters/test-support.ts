import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { createContext, type RequestContext } from "../context.js";
import { writeError } from "../handlers/responsewriters/status.js";
import { buildHandlerChain, type RequestFilter } from "./chain.js";

/** A node:http server on 127.0.0.1 whose every request runs `filters` and then `handler`, errors answered as Status. */
export interface ChainServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

export async function startChain(
  filters: readonly RequestFilter[],
  handler: (ctx: RequestContext) => Promise<void> | void = (ctx) => void ctx.res.end("ok"),
): Promise<ChainServer> {
  const chain = buildHandlerChain(filters, async (ctx) => handler(ctx));
  const server = createServer((req, res) => {
    const ctx = createContext(req, res);
    chain(ctx).catch((error: unknown) => writeError(ctx, error));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `startChain` for one test file: every server it starts is closed after the test that started it. */
export function chainServers(): typeof startChain {
  const started: ChainServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
  });
  return async (filters, handler) => {
    const server = await startChain(filters, handler);
    started.push(server);
    return server;
  };
}

/** Resolves when `predicate` holds, polling each turn of the event loop; fails after `timeoutMs`. */
export async function until(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A gate a handler waits on, released by the test. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
