import { describe, expect, it } from "vitest";
import { ANONYMOUS, type UserInfo } from "../access-reviews.js";
import { withAuthentication } from "./authentication.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

describe("the authentication filter", () => {
  it("tells later stages who sent the request", async () => {
    const users: UserInfo[] = [];
    const server = await startChain(
      [
        withAuthentication((ctx) =>
          ctx.req.headers.authorization === "Bearer alice" ? { name: "alice", groups: ["system:authenticated"] } : undefined,
        ),
      ],
      (ctx) => {
        users.push(ctx.user);
        ctx.res.end();
      },
    );
    await fetch(`${server.url}/api`, { headers: { authorization: "Bearer alice" } });
    await fetch(`${server.url}/api`);
    expect(users).toEqual([{ name: "alice", groups: ["system:authenticated"] }, ANONYMOUS]);
    expect(ANONYMOUS).toEqual({ name: "system:anonymous", groups: ["system:unauthenticated"] });
  });

  it("leaves every request anonymous without an authenticator", async () => {
    const users: UserInfo[] = [];
    const server = await startChain([withAuthentication(undefined)], (ctx) => {
      users.push(ctx.user);
      ctx.res.end();
    });
    await fetch(`${server.url}/api`, { headers: { authorization: "Bearer alice" } });
    expect(users).toEqual([ANONYMOUS]);
  });
});
