import { describe, expect, it } from "vitest";
import { badRequest } from "../../api/errors/index.js";
import type { RequestFilter } from "./chain.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

function recording(name: string, seen: string[]): RequestFilter {
  return {
    name,
    async handle(ctx, next) {
      seen.push(`> ${name}`);
      await next(ctx);
      seen.push(`< ${name}`);
    },
  };
}

describe("the handler chain", () => {
  it("runs filters in the given order around the handler", async () => {
    const seen: string[] = [];
    const server = await startChain([recording("a", seen), recording("b", seen)], (ctx) => {
      seen.push("handler");
      ctx.res.end("ok");
    });
    expect(await (await fetch(`${server.url}/x`)).text()).toBe("ok");
    expect(seen).toEqual(["> a", "> b", "handler", "< b", "< a"]);
  });

  it("ends at a filter that answers the request, and answers a filter's error as its Status", async () => {
    const seen: string[] = [];
    const refuse: RequestFilter = {
      name: "refuse",
      handle: (ctx) => {
        if (ctx.path === "/bad") throw badRequest("no thanks");
        ctx.res.end("answered");
        return Promise.resolve();
      },
    };
    const server = await startChain([refuse, recording("after", seen)], () => void seen.push("handler"));
    expect(await (await fetch(`${server.url}/x`)).text()).toBe("answered");
    const bad = await fetch(`${server.url}/bad`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ kind: "Status", reason: "BadRequest", message: "no thanks" });
    expect(seen).toEqual([]);
  });
});
