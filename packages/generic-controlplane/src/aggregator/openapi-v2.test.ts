import { describe, expect, it } from "vitest";
import type { SwaggerDocument } from "../openapi/v2.js";
import { mergeSwagger } from "./openapi-v2.js";

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
const get = (schema: unknown) => ({ get: { responses: { "200": { description: "OK", schema } } } });
const swagger = (paths: Record<string, unknown>, definitions: Record<string, unknown>) =>
  ({ swagger: "2.0", info: { title: "Kubernetes", version: "v1" }, paths, definitions }) as unknown as SwaggerDocument;

describe("mergeSwagger (kube-aggregator's merge of an extension server's /openapi/v2)", () => {
  const meta = { type: "object", properties: { name: { type: "string" } } };

  it("adds the source's paths and definitions, keeping one copy of a definition both have alike", () => {
    const local = swagger(
      { "/api/v1/configmaps": get(ref("ConfigMap")) },
      { ConfigMap: { type: "object", properties: { metadata: ref("ObjectMeta") } }, ObjectMeta: meta },
    );
    const remote = swagger(
      { "/apis/wardle.example.com/v1alpha1/flunders": get(ref("Flunder")) },
      { Flunder: { type: "object", properties: { metadata: ref("ObjectMeta") } }, ObjectMeta: { ...meta } },
    );
    const merged = mergeSwagger(local, remote);
    expect(Object.keys(merged.paths)).toEqual(["/api/v1/configmaps", "/apis/wardle.example.com/v1alpha1/flunders"]);
    expect(Object.keys(merged.definitions).sort()).toEqual(["ConfigMap", "Flunder", "ObjectMeta"]);
    expect(Object.keys(local.definitions)).toEqual(["ConfigMap", "ObjectMeta"]);
  });

  it("renames a definition whose schema differs to <name>_v2 (then _v3), with the source's references", () => {
    const local = swagger({ "/a": get(ref("Thing")) }, { Thing: { type: "string" }, Thing_v2: { type: "integer" } });
    const remote = swagger(
      { "/b": get(ref("Holder")) },
      { Holder: { type: "object", properties: { thing: ref("Thing") } }, Thing: { type: "boolean" } },
    );
    const merged = mergeSwagger(local, remote);
    expect(merged.definitions.Thing).toEqual({ type: "string" });
    expect(merged.definitions.Thing_v2).toEqual({ type: "integer" });
    expect(merged.definitions.Thing_v3).toEqual({ type: "boolean" });
    expect(merged.definitions.Holder).toEqual({ type: "object", properties: { thing: ref("Thing_v3") } });
    expect(merged.paths["/a"]).toEqual(get(ref("Thing")));
    // The source document is left as it was.
    expect(remote.definitions.Holder).toEqual({ type: "object", properties: { thing: ref("Thing") } });
  });

  it("keeps the local operation of a path both serve, and drops the definitions only the source's copy used", () => {
    const local = swagger({ "/version": get(ref("Info")) }, { Info: { type: "object" } });
    const remote = swagger(
      { "/version": get(ref("RemoteInfo")), "/apis/x/v1/ys": get(ref("Y")) },
      {
        RemoteInfo: { type: "object", properties: { detail: ref("Detail") } },
        Detail: { type: "string" },
        Y: { type: "object", properties: { z: ref("Z") } },
        Z: { type: "string" },
      },
    );
    const merged = mergeSwagger(local, remote);
    expect(merged.paths["/version"]).toEqual(get(ref("Info")));
    expect(Object.keys(merged.definitions).sort()).toEqual(["Info", "Y", "Z"]);
    // Nothing new: the same document.
    expect(mergeSwagger(local, swagger({ "/version": get(ref("Info")) }, { Info: { type: "array" } }))).toBe(local);
  });
});
