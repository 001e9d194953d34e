import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeList, KubeObject } from "../../../api/types.js";
import { LIST_PAGE_SIZE } from "../../../registry/list.js";
import { createContext } from "../../context.js";
import { startTestPlane, type TestPlane } from "../../test-support.js";
import { writeListPages } from "./list-stream.js";
import { listShape } from "./respond.js";

/** Twenty pages of the size a whole list is read in. */
const COUNT = 10_000;
const PATH = "/api/v1/namespaces/many/configmaps";

let t: TestPlane;

beforeAll(async () => {
  expect(COUNT / LIST_PAGE_SIZE).toBeGreaterThanOrEqual(4);
  t = await startTestPlane();
  expect((await t.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "many" } } })).status).toBe(201);
  const created = await t.call("POST", PATH, {
    body: { metadata: { name: "cm-00000", labels: { app: "x" } }, data: { text: 'é "quoted"\n\u2028', n: "1" } },
  });
  expect(created.status).toBe(201);
  // The rest are written straight to storage (the stored form of the first, renamed): 10,000 creates through HTTP take long.
  const stored = JSON.parse((await t.plane.storage.get("/registry/configmaps/many/cm-00000"))!.value) as KubeObject & {
    metadata: Record<string, unknown>;
  };
  const writes: Array<Promise<unknown>> = [];
  for (let i = 1; i < COUNT; i++) {
    const name = `cm-${String(i).padStart(5, "0")}`;
    stored.metadata.name = name;
    stored.metadata.uid = `uid-${i}`;
    writes.push(t.plane.storage.create(`/registry/configmaps/many/${name}`, JSON.stringify(stored)));
  }
  await Promise.all(writes);
}, 120_000);

afterAll(() => t.close());

/** The collection read with limit/continue (each page a whole body of its own, not streamed): its revision and items. */
async function pagedItems(limit: number): Promise<{ resourceVersion: string; items: KubeObject[] }> {
  const items: KubeObject[] = [];
  let token: string | undefined;
  let resourceVersion: string | undefined;
  do {
    const page = await t.call("GET", `${PATH}?limit=${limit}${token === undefined ? "" : `&continue=${token}`}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-length")).not.toBeNull();
    const list = page.json as KubeList;
    resourceVersion ??= list.metadata.resourceVersion;
    expect(list.metadata.resourceVersion).toBe(resourceVersion);
    items.push(...list.items);
    token = list.metadata.continue;
  } while (token !== undefined);
  return { resourceVersion: resourceVersion!, items };
}

const listBody = (resourceVersion: string, items: KubeObject[]): string =>
  `${JSON.stringify({ apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion }, items })}\n`;

const items0 = (list: { items: KubeObject[] }, index: number): KubeObject => list.items[index]!;

async function expectStreamed(path: string, expected: string): Promise<void> {
  const streamed = await t.call("GET", path);
  expect(streamed.status).toBe(200);
  expect(streamed.headers.get("transfer-encoding")).toBe("chunked");
  expect(streamed.text.length).toBe(expected.length);
  // Not toBe: a failure would print 3 MB twice.
  expect(streamed.text === expected).toBe(true);
}

describe("a LIST of 10,000 objects", { timeout: 120_000 }, () => {
  it("sends exactly JSON.stringify of the list, again and again, and with limit/continue", async () => {
    const { resourceVersion, items } = await pagedItems(LIST_PAGE_SIZE);
    expect(items).toHaveLength(COUNT);
    const expected = listBody(resourceVersion, items);
    expect((await t.call("GET", `${PATH}?limit=${COUNT * 2}`)).text === expected).toBe(true);
    for (let i = 0; i < 3; i++) await expectStreamed(PATH, expected);

    // The rest of the list after a first page of another size: pages cut at other keys than a whole list's.
    const first = (await t.call("GET", `${PATH}?limit=777`)).json as KubeList;
    for (let i = 0; i < 2; i++)
      await expectStreamed(`${PATH}?continue=${first.metadata.continue}`, listBody(resourceVersion, items.slice(777)));
    expect(await pagedItems(1234)).toEqual({ resourceVersion, items });
  });

  it("sends each change: an update, a delete and a create in the middle, and an update of the first object", async () => {
    const update = { ...items0(await pagedItems(LIST_PAGE_SIZE), 2345), data: { changed: "yes" } };
    expect((await t.call("PUT", `${PATH}/${update.metadata!.name}`, { body: update })).status).toBe(200);
    expect((await t.call("DELETE", `${PATH}/cm-05000`)).status).toBe(200);
    expect((await t.call("POST", PATH, { body: { metadata: { name: "cm-07000a" }, data: { added: "yes" } } })).status).toBe(201);
    const firstObject = items0(await pagedItems(LIST_PAGE_SIZE), 0);
    expect((await t.call("PUT", `${PATH}/cm-00000`, { body: { ...firstObject, data: { first: "changed" } } })).status).toBe(200);
    const { resourceVersion, items } = await pagedItems(LIST_PAGE_SIZE);
    expect(items).toHaveLength(COUNT);
    expect(items.find((o) => o.metadata?.name === "cm-02345")?.data).toEqual({ changed: "yes" });
    expect(items.find((o) => o.metadata?.name === "cm-05000")).toBeUndefined();
    const expected = listBody(resourceVersion, items);
    for (let i = 0; i < 2; i++) await expectStreamed(PATH, expected);
  });
});

describe("writeListPages with a page storage shares between lists", () => {
  let server: Server;
  const written: Buffer[][] = [];
  /** Per request, how many writes its socket made (each one or more buffers handed to the kernel at once). */
  const socketWrites: number[] = [];
  // About 20 KB: bytes a copy would put in a new allocation of their own on every request.
  const objects: KubeObject[] = Array.from({ length: 50 }, (_, i) => ({ metadata: { name: `o-${i}` }, data: { fill: "x".repeat(400) } }));
  const page = Object.freeze(objects) as KubeObject[];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const writes: Buffer[] = [];
      written.push(writes);
      const request = socketWrites.push(0) - 1;
      const socket = res.socket as unknown as Record<"_write" | "_writev", (...args: unknown[]) => unknown>;
      for (const method of ["_write", "_writev"] as const) {
        const original = socket[method].bind(socket);
        socket[method] = (...args: unknown[]) => {
          socketWrites[request]!++;
          return original(...args);
        };
      }
      const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
      (res as ServerResponse & { write: typeof write }).write = (chunk: unknown, ...rest: unknown[]) => {
        if (Buffer.isBuffer(chunk)) writes.push(chunk);
        return write(chunk, ...rest);
      };
      async function* pages(): AsyncGenerator<KubeObject[]> {
        await Promise.resolve();
        yield page;
        yield page;
      }
      const list = { apiVersion: "v1", kind: "ThingList", metadata: { resourceVersion: "7" }, pages: pages() };
      const shape = listShape(list, { type: "json" }, { toTable: () => ({}) as never }, "Metadata");
      void writeListPages(createContext(req, res), list, shape);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("writes the page's kept bytes, without copying them, on every request", async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const expected = `${JSON.stringify({ apiVersion: "v1", kind: "ThingList", metadata: { resourceVersion: "7" }, items: [...page, ...page] })}\n`;
    for (let i = 0; i < 2; i++) expect(await (await fetch(url)).text()).toBe(expected);
    const pageBuffers = written.map((writes) => writes.filter((chunk) => chunk.length > 10_000).map((chunk) => chunk.buffer));
    expect(pageBuffers.map((buffers) => buffers.length)).toEqual([2, 2]);
    expect(new Set(pageBuffers.flat()).size).toBe(1);
  });

  it("hands the socket a list of kept pages at once, not a write per page", async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const from = socketWrites.length;
    // A fresh connection each, so no other response shares the sockets counted.
    for (let i = 0; i < 2; i++) await (await fetch(url, { headers: { connection: "close" } })).text();
    expect(socketWrites.slice(from)).toEqual([1, 1]);
  });
});
