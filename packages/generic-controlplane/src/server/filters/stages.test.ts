import { describe, expect, it } from "vitest";
import { unauthorized } from "../../api/errors/index.js";
import { withStages, type HandlerStage } from "./stages.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

describe("configured stages", () => {
  it("run in order; one that answers or throws ends the request before dispatch", async () => {
    const seen: string[] = [];
    const stages: HandlerStage[] = [
      { name: "note", handle: (ctx) => void seen.push(`note ${ctx.path}`) },
      {
        name: "answer",
        handle(ctx) {
          if (ctx.path !== "/answered") return false;
          ctx.res.end("by stage");
          return true;
        },
      },
      {
        name: "deny",
        handle(ctx) {
          if (ctx.path === "/denied") throw unauthorized("Unauthorized");
        },
      },
    ];
    const server = await startChain([withStages(stages)], (ctx) => {
      seen.push(`dispatch ${ctx.path}`);
      ctx.res.end("dispatched");
    });
    expect(await (await fetch(`${server.url}/answered`)).text()).toBe("by stage");
    expect((await fetch(`${server.url}/denied`)).status).toBe(401);
    expect(await (await fetch(`${server.url}/other`)).text()).toBe("dispatched");
    expect(seen).toEqual(["note /answered", "note /denied", "note /other", "dispatch /other"]);
  });
});
