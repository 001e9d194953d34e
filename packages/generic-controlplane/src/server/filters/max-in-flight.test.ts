import { describe, expect, it } from "vitest";
import { withMaxInFlight } from "./max-in-flight.js";
import { withRequestInfo } from "./request-info.js";
import { chainServers, gate, until } from "./test-support.js";

const startChain = chainServers();

describe("the max-in-flight filter", () => {
  it("refuses a resource request of a full kind with 429, counts the requests in flight, and leaves watches out", async () => {
    const held = gate();
    const inflight = { readOnly: 0, mutating: 0 };
    let entered = 0;
    const server = await startChain(
      [withRequestInfo(), withMaxInFlight({ limits: { readOnly: 1, mutating: 1 }, inflight })],
      async (ctx) => {
        entered++;
        if (ctx.info?.isResourceRequest === true && ctx.info.verb === "watch") {
          ctx.res.writeHead(200).write("streaming");
          return;
        }
        if (ctx.path !== "/healthz") await held.opened;
        ctx.res.end("done");
      },
    );
    const watch = new AbortController();
    void fetch(`${server.url}/api/v1/configmaps?watch=true`, { signal: watch.signal }).catch(() => undefined);
    const list = fetch(`${server.url}/api/v1/configmaps`);
    await until(() => entered === 2, "the watch and the list to be served");
    expect(inflight.readOnly).toBe(1);

    const refused = await fetch(`${server.url}/api/v1/namespaces/ns/configmaps/a`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({ kind: "Status", reason: "TooManyRequests" });
    // Another kind has its own seats; non-resource requests are counted but never refused.
    const write = fetch(`${server.url}/api/v1/namespaces/ns/configmaps`, { method: "POST", body: "{}" });
    await until(() => inflight.mutating === 1, "the write to take its seat");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    held.open();
    expect(await (await list).text()).toBe("done");
    expect(await (await write).text()).toBe("done");
    await until(() => inflight.readOnly === 0 && inflight.mutating === 0, "the seats to be given back");
    watch.abort();
  });

  it("only counts when no limits are given (priority and fairness admits instead)", async () => {
    const inflight = { readOnly: 0, mutating: 0 };
    const held = gate();
    const server = await startChain([withRequestInfo(), withMaxInFlight({ inflight })], async (ctx) => {
      await held.opened;
      ctx.res.end();
    });
    const requests = [1, 2, 3].map(() => fetch(`${server.url}/api/v1/configmaps`));
    await until(() => inflight.readOnly === 3, "three reads in flight");
    held.open();
    for (const response of await Promise.all(requests)) expect(response.status).toBe(200);
  });
});
