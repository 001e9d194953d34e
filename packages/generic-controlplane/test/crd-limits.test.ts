/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { establish, watchReader } from "../src/apiextensions/test-fixtures.js";
import type { CustomResourceDefinition } from "../src/apiextensions/types.js";
import { startTestPlane, type TestPlane } from "../src/server/test-support.js";

/**
 * Size and nesting limits on custom resources, as kube-apiserver sets them.
 *
 * The first part ports upstream's TestLimits
 * (staging/src/k8s.io/apiextensions-apiserver/test/integration/limit_test.go): bodies over 3 MiB
 * are 413, bodies under it nested 1.5 million levels deep are 400, for create (JSON and YAML) and
 * for every patch type.
 *
 * The second part is the other side of that limit. Kubernetes' JSON decoder (sigs.k8s.io/json)
 * stops at a nesting depth of 10,000 (`exceeded max depth`), so a custom resource whose
 * preserved-unknown fields nest 10,000 levels deep, counting the object itself, is stored and
 * served whole, and one level more is refused. Every step of such an object's life runs here at
 * that depth: create, get, list, watch, every patch type, server-side apply and a replace.
 */

const MAX_DEPTH = 10_000;

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
  await establish(t, noxuDefinition());
}, 30_000);
afterAll(async () => {
  await t?.close();
});

/** apiextensions' fixtures.NewNoxuV1CustomResourceDefinition, cluster-scoped, with AllowAllSchema. */
function noxuDefinition(): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "noxus.mygroup.example.com" },
    spec: {
      group: "mygroup.example.com",
      versions: [
        {
          name: "v1beta1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
      names: {
        plural: "noxus",
        singular: "nonenglishnoxu",
        kind: "WishIHadChosenNoxu",
        shortNames: ["foo", "bar", "abc", "def"],
        listKind: "NoxuItemList",
        categories: ["all"],
      },
      scope: "Cluster",
    },
  };
}

const apiVersion = "mygroup.example.com/v1beta1";
const kind = "WishIHadChosenNoxu";
const noxus = "/apis/mygroup.example.com/v1beta1/noxus";
const json = { "Content-Type": "application/json", Accept: "application/json" };
const yaml = { "Content-Type": "application/yaml", Accept: "application/yaml" };
const MiB3 = 3 * 1024 * 1024;

describe("TestLimits (apiextensions-apiserver test/integration/limit_test.go)", () => {
  it("create YAML over limit", async () => {
    const body = `\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: test\nvalues: ` + "[".repeat(MiB3);
    const r = await t.call("POST", noxus, { headers: yaml, raw: body });
    expect(r.status).toBe(413);
  });

  it("create YAML doc under limit, nested", async () => {
    const body =
      `\n\tapiVersion: ${apiVersion}\n\tkind: ${kind}\n\tmetadata:\n\t  name: test\n\tvalues: ` +
      "[".repeat(MiB3 / 2 - 500) +
      "]".repeat(MiB3 / 2 - 500);
    const r = await t.call("POST", noxus, { headers: yaml, raw: body });
    expect(r.status).toBe(400);
  });

  it("create YAML doc under limit, not nested", async () => {
    const body =
      `\n\t\tapiVersion: ${apiVersion}\n\t\tkind: ${kind}\n\t\tmetadata:\n\t\t  name: test\n\t\tvalues: ` + "[".repeat(MiB3 - 1000);
    const r = await t.call("POST", noxus, { headers: yaml, raw: body });
    expect(r.status).toBe(400);
  });

  it("create JSON over limit", async () => {
    const body =
      `{\n\t"apiVersion": "${apiVersion}",\n\t"kind": "${kind}",\n\t"metadata": {\n\t  "name": "test"\n\t},\n\t"values": ` +
      "[".repeat(MiB3 / 2) +
      "]".repeat(MiB3 / 2) +
      "}";
    const r = await t.call("POST", noxus, { headers: json, raw: body });
    expect(r.status).toBe(413);
  });

  it("create JSON doc under limit, nested", async () => {
    const body =
      `{\n\t\t"apiVersion": "${apiVersion}",\n\t\t"kind": "${kind}",\n\t\t"metadata": {\n\t\t  "name": "test"\n\t\t},\n\t\t"values": ` +
      "[".repeat(MiB3 / 2 - 500) +
      "]".repeat(MiB3 / 2 - 500) +
      "}";
    const r = await t.call("POST", noxus, { headers: json, raw: body });
    expect(r.status).toBe(400);
  });

  it("create JSON doc under limit, not nested", async () => {
    const body =
      `{\n\t\t\t"apiVersion": "${apiVersion}",\n\t\t\t"kind": "${kind}",\n\t\t\t"metadata": {\n\t\t\t  "name": "test"\n\t\t\t},\n\t\t\t"values": ` +
      "[".repeat(MiB3 - 1000) +
      "}";
    const r = await t.call("POST", noxus, { headers: json, raw: body });
    expect(r.status).toBe(400);
  });

  describe("patches of the instance", () => {
    beforeAll(async () => {
      const r = await t.call("POST", noxus, { raw: JSON.stringify({ apiVersion, kind, metadata: { name: "test" } }), headers: json });
      expect(r.status, r.text).toBe(201);
    });
    const nestedValue = "[".repeat(MiB3 / 2 - 100) + "]".repeat(MiB3 / 2 - 100);

    it("JSONPatchType nested patch under limit", async () => {
      const r = await t.call("PATCH", `${noxus}/test`, {
        headers: { "Content-Type": "application/json-patch+json" },
        raw: `[{"op":"add","path":"/foo","value":${nestedValue}}]`,
      });
      expect(r.status).toBe(400);
    });

    it("MergePatchType nested patch under limit", async () => {
      const r = await t.call("PATCH", `${noxus}/test`, {
        headers: { "Content-Type": "application/merge-patch+json" },
        raw: `{"value":${nestedValue}}`,
      });
      expect(r.status).toBe(400);
    });

    it("ApplyPatchType nested patch under limit", async () => {
      const r = await t.call("PATCH", `${noxus}/test?fieldManager=test`, {
        headers: { "Content-Type": "application/apply-patch+yaml" },
        raw: `{"value":${nestedValue}}`,
      });
      expect(r.status).toBe(400);
    });
  });
});

/** `depth` levels of arrays: `[[…]]`. */
const arrays = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);
/** `depth` levels of objects, `{"a":{"a":…{"a":"deepest"}…}}`. */
const objects = (depth: number, leaf = '"deepest"'): string => '{"a":'.repeat(depth) + leaf + "}".repeat(depth);

/** How deep `value` nests, the value itself counting as one level when it is an array or object. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [current, depth] = entry;
    if (current === null || typeof current !== "object") continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The value at the end of the `a` chain of `objects(depth)`. */
function leafOf(value: unknown): unknown {
  let current = value;
  while (current !== null && typeof current === "object" && !Array.isArray(current) && Object.hasOwn(current, "a"))
    current = (current as { a: unknown }).a;
  return current;
}

describe(`custom resources nested ${MAX_DEPTH} levels deep`, () => {
  // The object itself is level 1, so a field's value may nest 9,999 levels.
  const fieldLevels = MAX_DEPTH - 1;

  it("are created, read, listed and watched whole; one level more is refused", async () => {
    const watch = await fetch(`${t.url}${noxus}?watch=true&fieldSelector=metadata.name%3Ddeep-arrays`);
    const events = watchReader(watch);
    try {
      const created = await t.call("POST", noxus, {
        headers: json,
        raw: `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"deep-arrays"},"values":${arrays(fieldLevels)}}`,
      });
      expect(created.status, created.text.slice(0, 300)).toBe(201);
      expect(depthOf(created.json)).toBe(MAX_DEPTH);
      expect(created.json.values).toBeDefined();

      const got = await t.call("GET", `${noxus}/deep-arrays`, { headers: { Accept: "application/json" } });
      expect(got.status).toBe(200);
      expect(depthOf(got.json.values)).toBe(fieldLevels);

      const listed = await t.call("GET", `${noxus}?fieldSelector=metadata.name%3Ddeep-arrays`);
      expect(listed.status).toBe(200);
      expect(depthOf(listed.json.items[0].values)).toBe(fieldLevels);

      const added = (await events.next()) as { type: string; object: { values: unknown } };
      expect(added.type).toBe("ADDED");
      expect(depthOf(added.object.values)).toBe(fieldLevels);
    } finally {
      await events.cancel();
    }

    const tooDeep = await t.call("POST", noxus, {
      headers: json,
      raw: `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"too-deep"},"values":${arrays(fieldLevels + 1)}}`,
    });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.json.message).toContain("exceeded max depth");
  }, 60_000);

  it("are read from JSON-shaped YAML bodies and answered in YAML", async () => {
    // kubectl sends YAML bodies (apply configurations) as JSON, which YAML includes.
    const created = await t.call("POST", noxus, {
      headers: yaml,
      raw: `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"deep-yaml"},"spec":${objects(fieldLevels)}}`,
    });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    expect(created.headers.get("content-type")).toBe("application/yaml");
    // A YAML writer recursing per level cannot spell this; JSON text is YAML too (flow style).
    const answered = JSON.parse(created.text) as { spec: unknown };
    expect(depthOf(answered.spec)).toBe(fieldLevels);
    expect(leafOf(answered.spec)).toBe("deepest");

    const listed = await t.call("GET", `${noxus}?fieldSelector=metadata.name%3Ddeep-yaml`, { headers: { Accept: "application/yaml" } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("content-type")).toBe("application/yaml");
    const list = JSON.parse(listed.text) as { kind: string; items: Array<{ spec: unknown }> };
    expect(list.kind).toBe("NoxuItemList");
    expect(depthOf(list.items[0]!.spec)).toBe(fieldLevels);
  }, 60_000);

  it("refuse a block-style YAML body nested deeper than the YAML parser reaches, with a 400", async () => {
    let block = "";
    // 2,200 levels, one space of indentation each (2.4 MB, under the body limit).
    for (let level = 0; level < 2200; level++) block += `${" ".repeat(level + 1)}a:\n`;
    const r = await t.call("POST", noxus, {
      headers: yaml,
      raw: `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: deep-block\nspec:\n${block}`,
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("error decoding YAML: exceeded max depth");
  }, 60_000);

  it("take merge patches, JSON patches and server-side apply at every depth, and a replace", async () => {
    const created = await t.call("POST", noxus, {
      headers: json,
      raw: `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"deep-objects"},"spec":${objects(fieldLevels, '"created"')}}`,
    });
    expect(created.status, created.text.slice(0, 300)).toBe(201);

    const merged = await t.call("PATCH", `${noxus}/deep-objects`, {
      headers: { "Content-Type": "application/merge-patch+json" },
      raw: `{"spec":${objects(fieldLevels, '"merged"')}}`,
    });
    expect(merged.status, merged.text.slice(0, 300)).toBe(200);
    expect(leafOf(merged.json.spec)).toBe("merged");

    const pointer = "/spec" + "/a".repeat(fieldLevels);
    const patched = await t.call("PATCH", `${noxus}/deep-objects`, {
      headers: { "Content-Type": "application/json-patch+json" },
      raw: JSON.stringify([
        { op: "test", path: pointer, value: "merged" },
        { op: "replace", path: pointer, value: "json-patched" },
      ]),
    });
    expect(patched.status, patched.text.slice(0, 300)).toBe(200);
    expect(leafOf(patched.json.spec)).toBe("json-patched");

    const applied = await t.call("PATCH", `${noxus}/deep-objects?fieldManager=deep-applier&force=true`, {
      headers: { "Content-Type": "application/apply-patch+yaml" },
      raw: `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"deep-objects"},"spec":${objects(fieldLevels, '"applied"')}}`,
    });
    expect(applied.status, applied.text.slice(0, 300)).toBe(200);
    expect(leafOf(applied.json.spec)).toBe("applied");
    const managedFields = applied.json.metadata.managedFields as Array<{ manager: string; operation: string; fieldsV1: unknown }>;
    const applier = managedFields.find((entry) => entry.manager === "deep-applier")!;
    expect(applier.operation).toBe("Apply");
    // The applier owns every level down to the leaf: the field set nests once per level, under
    // its own root and `f:spec`.
    expect(depthOf(applier.fieldsV1)).toBe(fieldLevels + 2);

    const replacement = `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"deep-objects","resourceVersion":"${applied.json.metadata.resourceVersion}"},"spec":${objects(fieldLevels, '"replaced"')}}`;
    const replaced = await t.call("PUT", `${noxus}/deep-objects`, { headers: json, raw: replacement });
    expect(replaced.status, replaced.text.slice(0, 300)).toBe(200);
    expect(leafOf(replaced.json.spec)).toBe("replaced");

    const got = await t.call("GET", `${noxus}/deep-objects`);
    expect(leafOf(got.json.spec)).toBe("replaced");
    expect(depthOf(got.json.spec)).toBe(fieldLevels);
  }, 120_000);
});
