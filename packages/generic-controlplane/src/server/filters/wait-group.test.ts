import { describe, expect, it } from "vitest";
import { withRequestInfo } from "./request-info.js";
import { chainServers, gate, until } from "./test-support.js";
import { NonLongRunningRequests, withWaitGroup } from "./wait-group.js";

const startChain = chainServers();

describe("the wait-group filter", () => {
  it("makes shutdown wait for requests in flight, but not for watches", async () => {
    const requests = new NonLongRunningRequests();
    const held = gate();
    let entered = 0;
    const server = await startChain([withRequestInfo(), withWaitGroup(requests)], async (ctx) => {
      entered++;
      if (ctx.info?.isResourceRequest === true && ctx.info.verb === "watch") {
        ctx.res.writeHead(200).write("streaming");
        return;
      }
      await held.opened;
      ctx.res.end("done");
    });
    const watch = new AbortController();
    void fetch(`${server.url}/api/v1/configmaps?watch=true`, { signal: watch.signal }).catch(() => undefined);
    const get = fetch(`${server.url}/api/v1/configmaps`);
    await until(() => entered === 2, "both requests to arrive");
    expect(requests.size).toBe(1);

    let drained = false;
    const draining = requests.drained(10_000).then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    held.open();
    expect(await (await get).text()).toBe("done");
    await draining;
    expect(requests.size).toBe(0);
    watch.abort();
  });

  it("stops waiting at the deadline", async () => {
    const requests = new NonLongRunningRequests();
    const held = gate();
    const server = await startChain([withRequestInfo(), withWaitGroup(requests)], () => held.opened);
    const abort = new AbortController();
    void fetch(`${server.url}/api/v1/configmaps`, { signal: abort.signal }).catch(() => undefined);
    await until(() => requests.size === 1, "the request to be tracked");
    await requests.drained(20);
    expect(requests.size).toBe(1);
    abort.abort();
    held.open();
    await until(() => requests.size === 0, "the aborted request to close");
  });
});
