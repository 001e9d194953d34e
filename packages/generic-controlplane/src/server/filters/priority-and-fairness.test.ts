import { describe, expect, it } from "vitest";
import { ANONYMOUS } from "../access-reviews.js";
import { PriorityAndFairness } from "../flowcontrol/priority-and-fairness.js";
import { parseRequestInfo } from "../request-info.js";
import { withPriorityAndFairness } from "./priority-and-fairness.js";
import { withRequestInfo } from "./request-info.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

const LIST_PATH = "/api/v1/namespaces/default/configmaps";

describe("the priority-and-fairness filter", () => {
  it("names the request's flow schema and priority level, and charges a LIST by the collection's size", async () => {
    const apf = new PriorityAndFairness({ serverConcurrencyLimit: 10 });
    const sized: string[] = [];
    const server = await startChain(
      [
        withRequestInfo(),
        withPriorityAndFairness(apf, {
          storedObjects: (group, resource) => {
            sized.push(`${group}/${resource}`);
            return Promise.resolve(5);
          },
        }),
      ],
      (ctx) => void ctx.res.end(),
    );
    const response = await fetch(`${server.url}${LIST_PATH}`);
    const expected = apf.classify(ANONYMOUS, parseRequestInfo("GET", LIST_PATH, new URLSearchParams()), "GET", LIST_PATH);
    expect(response.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(expected.flowSchema.metadata.uid);
    expect(response.headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(expected.priorityLevel.metadata.uid);
    await fetch(`${server.url}${LIST_PATH}/a`);
    expect(sized).toEqual(["/configmaps"]);
  });

  it("lets a watch give its seat back once initialized, and holds other requests' seats to the end", async () => {
    const apf = new PriorityAndFairness({ serverConcurrencyLimit: 10 });
    const initializers: [string, boolean][] = [];
    const server = await startChain([withRequestInfo(), withPriorityAndFairness(apf, {})], (ctx) => {
      initializers.push([ctx.query.get("watch") ?? "", typeof ctx.watchInitialized === "function"]);
      ctx.res.end();
    });
    await fetch(`${server.url}${LIST_PATH}?watch=true`);
    await fetch(`${server.url}${LIST_PATH}`);
    expect(initializers).toEqual([
      ["true", true],
      ["", false],
    ]);
  });
});
