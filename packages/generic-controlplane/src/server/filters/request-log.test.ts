import { describe, expect, it } from "vitest";
import type { LogRecord } from "../logger.js";
import { withRequestInfo } from "./request-info.js";
import { withRequestLog } from "./request-log.js";
import { chainServers, until } from "./test-support.js";

const startChain = chainServers();

describe("the request-log filter", () => {
  it("logs each request once when it finishes, with its Audit-Id, verb and code; unserved resources stay out of the labels", async () => {
    const records: LogRecord[] = [];
    const server = await startChain(
      [withRequestInfo(), withRequestLog({ logger: (r) => records.push(r), isServed: (info) => info.resource === "configmaps" })],
      (ctx) => {
        ctx.res.setHeader("Audit-Id", ctx.auditID);
        ctx.res.statusCode = ctx.path.includes("widgets") ? 404 : 201;
        ctx.res.end();
      },
    );
    const created = await fetch(`${server.url}/api/v1/namespaces/ns/configmaps`, { method: "POST", body: "{}" });
    await fetch(`${server.url}/apis/example.com/v1/widgets`);
    await until(() => records.length === 2, "two log records");
    expect(records[0]).toMatchObject({
      msg: "request",
      level: "info",
      auditID: created.headers.get("audit-id"),
      verb: "POST",
      code: 201,
      resource: "configmaps",
      namespace: "ns",
      mutating: true,
    });
    expect(records[1]).toMatchObject({ verb: "GET", code: 404, resource: undefined, mutating: false });
  });
});
