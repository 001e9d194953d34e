import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse as parseYaml } from "yaml";
import type { KubeList, KubeObject } from "../../../api/types.js";
import { decodeProtobuf } from "../../../protobuf/codec.js";
import { createContext } from "../../context.js";
import { writeListPages } from "./list-stream.js";
import { listShape } from "./respond.js";
import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import { toTable } from "../../../registry/table.js";
import { startTestPlane, type TestPlane } from "../../test-support.js";

/** More than two storage pages, so the streamed bodies cross page boundaries. */
const COUNT = 1234;

let t: TestPlane;

beforeAll(async () => {
  t = await startTestPlane();
  expect((await t.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "big" } } })).status).toBe(201);
  const created = await t.call("POST", "/api/v1/namespaces/big/configmaps", {
    body: {
      metadata: {
        name: "cm-0000",
        labels: { parity: "even" },
        annotations: { long: "a long annotation, ".repeat(10), empty: "", number: "12" },
      },
      data: { text: 'line one\nline two \u00e9 "quoted"', list: "- not: a list", colon: "key: value" },
    },
  });
  expect(created.status).toBe(201);
  // The rest are written straight to storage (the stored form of the first, renamed), with a
  // creationTimestamp long past, so Table ages read the same on every request.
  const stored = JSON.parse((await t.plane.storage.get("/registry/configmaps/big/cm-0000"))!.value) as KubeObject & {
    metadata: Record<string, unknown>;
  };
  stored.metadata.creationTimestamp = "2020-01-01T00:00:00Z";
  const createdMeta = (created.json as KubeObject).metadata;
  await t.plane.storage.update("/registry/configmaps/big/cm-0000", JSON.stringify(stored), Number(createdMeta?.resourceVersion));
  const writes: Array<Promise<unknown>> = [];
  for (let i = 1; i < COUNT; i++) {
    const name = `cm-${String(i).padStart(4, "0")}`;
    stored.metadata.name = name;
    stored.metadata.uid = `uid-${i}`;
    // The last few also match `tail`: a selector whose first pages match nothing.
    stored.metadata.labels = { parity: i % 2 === 0 ? "even" : "odd", ...(i >= COUNT - 3 ? { tail: "yes" } : {}) };
    writes.push(t.plane.storage.create(`/registry/configmaps/big/${name}`, JSON.stringify(stored)));
  }
  await Promise.all(writes);
});

afterAll(() => t.close());

/** A `limit` above the collection's size reads it whole in one go: the body the list had before it was streamed. */
const WHOLE = "limit=100000";

// Each case serialises 1,234 objects twice (YAML through the yaml library, and parses one back):
// well under a second alone, several on a loaded 2-core machine, so not the 5 s default.
describe("streamed LIST", { timeout: 60_000 }, () => {
  const accepts: Array<[string, string]> = [
    ["JSON", "application/json"],
    ["Table v1", "application/json;as=Table;v=v1;g=meta.k8s.io"],
    ["Table v1beta1", "application/json;as=Table;v=v1beta1;g=meta.k8s.io"],
    ["PartialObjectMetadataList v1", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"],
    ["PartialObjectMetadataList v1beta1", "application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io"],
    ["YAML", "application/yaml"],
  ];
  for (const [name, accept] of accepts) {
    const expected: Record<string, number> = { "labelSelector=parity%3Dodd": COUNT / 2, "labelSelector=tail": 3 };
    for (const query of [
      "",
      "pretty=true",
      "labelSelector=parity%3Dodd",
      "labelSelector=tail",
      "includeObject=Object",
      "includeObject=None",
    ]) {
      it(`sends the same bytes as the whole list for ${name}${query ? ` with ${query}` : ""}`, async () => {
        const sep = query ? "&" : "";
        const streamed = await t.call("GET", `/api/v1/namespaces/big/configmaps?${query}`, { headers: { Accept: accept } });
        const whole = await t.call("GET", `/api/v1/namespaces/big/configmaps?${query}${sep}${WHOLE}`, { headers: { Accept: accept } });
        expect(streamed.status).toBe(200);
        expect(whole.headers.get("content-length")).not.toBeNull();
        expect(streamed.headers.get("transfer-encoding")).toBe("chunked");
        expect(streamed.headers.get("content-type")).toBe(whole.headers.get("content-type"));
        expect(streamed.text.length).toBe(whole.text.length);
        expect(streamed.text === whole.text).toBe(true);
        const body = (accept === "application/yaml" ? parseYaml(streamed.text) : streamed.json) as { items?: unknown[]; rows?: unknown[] };
        expect((body.items ?? body.rows)?.length).toBe(expected[query] ?? COUNT);
      });
    }
  }

  it("sends the same protobuf body, with its Content-Length, as the whole list to a protobuf-only client", async () => {
    const accept = { Accept: "application/vnd.kubernetes.protobuf" };
    for (const query of ["", "labelSelector=parity%3Dodd"]) {
      const streamed = await fetch(`${t.url}/api/v1/namespaces/big/configmaps?${query}`, { headers: accept });
      const whole = await fetch(`${t.url}/api/v1/namespaces/big/configmaps?${query}&${WHOLE}`, { headers: accept });
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get("content-type")).toBe("application/vnd.kubernetes.protobuf");
      const [a, b] = [Buffer.from(await streamed.arrayBuffer()), Buffer.from(await whole.arrayBuffer())];
      expect(streamed.headers.get("content-length")).toBe(String(a.length));
      expect(a.length).toBe(b.length);
      expect(a.equals(b)).toBe(true);
      const decoded = decodeProtobuf(a) as unknown as KubeList;
      expect(decoded.items).toHaveLength(query === "" ? COUNT : COUNT / 2);
    }
  });

  it("sends the same bytes for an empty list, compact, indented and in YAML", async () => {
    for (const [query, accept] of [
      ["", "application/json"],
      ["pretty=true", "application/json"],
      ["", "application/yaml"],
    ] as const) {
      const streamed = await t.call("GET", `/api/v1/namespaces/big/configmaps?labelSelector=absent&${query}`, {
        headers: { Accept: accept },
      });
      const whole = await t.call("GET", `/api/v1/namespaces/big/configmaps?labelSelector=absent&${query}&${WHOLE}`, {
        headers: { Accept: accept },
      });
      expect(streamed.headers.get("transfer-encoding")).toBe("chunked");
      expect(streamed.text).toBe(whole.text);
      expect((accept === "application/yaml" ? parseYaml(streamed.text) : streamed.json) as KubeList).toMatchObject({ items: [] });
    }
  });

  it("continues from a continue token to the end of the snapshot, at its resourceVersion", async () => {
    const first = (await t.call("GET", "/api/v1/namespaces/big/configmaps?limit=100")).json as KubeList;
    await t.call("POST", "/api/v1/namespaces/big/configmaps", { body: { metadata: { name: "cm-0500a" } } });
    const response = await t.call("GET", `/api/v1/namespaces/big/configmaps?continue=${first.metadata.continue}`);
    const rest = response.json as KubeList;
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    expect(rest.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(rest.items.map((o) => o.metadata?.name)).toEqual(
      Array.from({ length: COUNT - 100 }, (_, i) => `cm-${String(i + 100).padStart(4, "0")}`),
    );
    await t.call("DELETE", "/api/v1/namespaces/big/configmaps/cm-0500a");
  });

  it("answers errors found before the first byte with a Status", async () => {
    const tooLarge = await t.call("GET", "/api/v1/namespaces/big/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan");
    expect(tooLarge.status).toBe(504);
    expect(tooLarge.json).toMatchObject({ kind: "Status", reason: "Timeout" });
    const badSelector = await t.call("GET", "/api/v1/namespaces/big/configmaps?labelSelector=a%20b");
    expect(badSelector.status).toBe(400);
  });

  it("sends only headers for HEAD", async () => {
    const response = await fetch(`${t.url}/api/v1/namespaces/big/configmaps`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });
});

describe("writeListPages", () => {
  let server: Server;
  let fail: "first" | "second" | undefined;
  let endless = false;
  let pulled = 0;
  let finished = false;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const ctx = createContext(req, res);
      async function* pages(): AsyncGenerator<KubeObject[]> {
        try {
          await Promise.resolve();
          if (fail === "first") throw new Error("first page failed");
          pulled++;
          yield [{ metadata: { name: "a" } }];
          if (fail === "second") throw new Error("second page failed");
          // A page of ~1 MB at a time, far more than the client reads before it goes away.
          for (let page = 0; endless && page < 10_000; page++) {
            pulled++;
            yield Array.from({ length: 100 }, (_, i) => ({ metadata: { name: `p${page}-${i}` }, data: { fill: "x".repeat(10_000) } }));
          }
          pulled++;
          yield [{ metadata: { name: "b" } }];
        } finally {
          finished = true;
        }
      }
      const list = { apiVersion: "v1", kind: "ThingList", metadata: { resourceVersion: "7" }, pages: pages() };
      const definition: ResourceDefinition = {
        group: "",
        version: "v1",
        kind: "Thing",
        plural: "things",
        singular: "thing",
        scope: "Cluster",
      };
      const shape = listShape(list, { type: "json" }, { toTable: (objects, options) => toTable(definition, objects, options) }, "Metadata");
      writeListPages(ctx, list, shape).catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  it("writes every page between the list's envelope and its closing bracket", async () => {
    fail = undefined;
    const response = await fetch(url());
    expect(await response.text()).toBe(
      '{"apiVersion":"v1","kind":"ThingList","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}\n',
    );
  });

  it("rejects before any byte when the first page fails", async () => {
    fail = "first";
    const response = await fetch(url());
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("Error: first page failed");
  });

  it("cuts the connection when a later page fails, so no client takes the list for whole", async () => {
    fail = "second";
    const response = await fetch(url());
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it("stops reading pages when the client goes away mid-list", async () => {
    fail = undefined;
    endless = true;
    pulled = 0;
    finished = false;
    try {
      const abort = new AbortController();
      const response = await fetch(url(), { signal: abort.signal });
      const reader = response.body!.getReader();
      await reader.read();
      abort.abort();
      await vi.waitFor(() => expect(finished).toBe(true), { timeout: 5000, interval: 10 });
      expect(pulled).toBeLessThan(1000);
    } finally {
      endless = false;
    }
  });
});
