import { describe, expect, it } from "vitest";
import { secretsResource } from "./secrets.js";
import { cells, createErrors, updateErrors } from "./test-helpers.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const secret = (fields: Record<string, unknown>, annotations?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "s", namespace: "default", ...(annotations ? { annotations } : {}) },
  ...fields,
});

describe("Secret defaulting and stringData", () => {
  it("defaults type to Opaque", () => {
    expect(createErrors(secretsResource, secret({})).object["type"]).toBe("Opaque");
  });

  it("folds stringData into data (overriding equal keys) and drops it", () => {
    const { object, errors } = createErrors(
      secretsResource,
      secret({ data: { a: b64("old"), b: b64("keep") }, stringData: { a: "new", c: "ü" } }),
    );
    expect(errors).toEqual([]);
    expect(object["stringData"]).toBeUndefined();
    expect(object["data"]).toEqual({ a: b64("new"), b: b64("keep"), c: b64("ü") });
  });

  it("keeps a `__proto__` key as data", () => {
    const input = JSON.parse('{"metadata":{"name":"s"},"stringData":{"__proto__":"x"}}') as Record<string, unknown>;
    const data = createErrors(secretsResource, input).object["data"] as Record<string, string>;
    expect(Object.keys(data)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it("validates stringData keys as data keys", () => {
    expect(createErrors(secretsResource, secret({ stringData: { "": "x" } })).errors).toEqual([
      `data[]: Invalid value: "": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
  });

  it.each([
    ["YQ=", 3],
    ["YWJj$", 4],
    ["YQ==YQ==", 4],
    ["Y", 0],
    ["YQ=x", 2],
  ])("rejects data %j like Go: illegal base64 data at input byte %i", (value, offset) => {
    expect(() => createErrors(secretsResource, secret({ data: { a: value } }))).toThrow(
      expect.objectContaining({
        code: "BadRequest",
        message: `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${offset}`,
      }),
    );
  });
});

describe("Secret type rules", () => {
  it.each([
    ["Opaque with nothing", { type: "Opaque" }, undefined, []],
    ["custom type", { type: "example.com/thing" }, undefined, []],
    ["tls without keys", { type: "kubernetes.io/tls" }, undefined, ["data[tls.crt]: Required value", "data[tls.key]: Required value"]],
    ["tls complete", { type: "kubernetes.io/tls", data: { "tls.crt": b64("c"), "tls.key": b64("k") } }, undefined, []],
    ["tls via stringData", { type: "kubernetes.io/tls", stringData: { "tls.crt": "c", "tls.key": "k" } }, undefined, []],
    [
      "basic-auth with neither",
      { type: "kubernetes.io/basic-auth" },
      undefined,
      ["data[username]: Required value", "data[password]: Required value"],
    ],
    ["basic-auth with an empty password only", { type: "kubernetes.io/basic-auth", data: { password: "" } }, undefined, []],
    [
      "ssh-auth with an empty key",
      { type: "kubernetes.io/ssh-auth", data: { "ssh-privatekey": "" } },
      undefined,
      ["data[ssh-privatekey]: Required value"],
    ],
    ["dockerconfigjson missing", { type: "kubernetes.io/dockerconfigjson" }, undefined, ["data[.dockerconfigjson]: Required value"]],
    [
      "dockerconfigjson not JSON",
      { type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64("nope") } },
      undefined,
      [`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'n' looking for beginning of value`],
    ],
    [
      "dockerconfigjson an array",
      { type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64("[]") } },
      undefined,
      [
        `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}`,
      ],
    ],
    [
      "dockerconfigjson valid",
      { type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64('{"auths":{}}') } },
      undefined,
      [],
    ],
    ["dockercfg missing", { type: "kubernetes.io/dockercfg" }, undefined, ["data[.dockercfg]: Required value"]],
    [
      "service-account-token without annotation",
      { type: "kubernetes.io/service-account-token" },
      undefined,
      ["metadata.annotations[kubernetes.io/service-account.name]: Required value"],
    ],
    [
      "service-account-token with annotation",
      { type: "kubernetes.io/service-account-token" },
      { "kubernetes.io/service-account.name": "default" },
      [],
    ],
    [
      "over 1 MiB",
      { data: { a: Buffer.alloc(1024 * 1024 + 1).toString("base64") } },
      undefined,
      ["data: Too long: may not be more than 1048576 bytes"],
    ],
  ])("%s", (_name, fields, annotations, expected) => {
    expect(createErrors(secretsResource, secret(fields, annotations)).errors).toEqual(expected);
  });
});

describe("Secret updates", () => {
  const old = { ...secret({ data: { a: b64("1") } }), type: "Opaque" };
  it.each([
    ["type change", { ...old, type: "example.com/x" }, [`type: Invalid value: "example.com/x": field is immutable`]],
    ["type omitted (defaults back to Opaque)", { ...old, type: undefined }, []],
    ["data change on a mutable secret", { ...old, data: { a: b64("2") } }, []],
  ])("%s", (_name, next, expected) => {
    expect(updateErrors(secretsResource, next, old).errors).toEqual(expected);
  });

  it("refuses a type reset by omission on a typed secret", () => {
    const typed = { ...old, type: "example.com/x" };
    expect(updateErrors(secretsResource, { ...typed, type: undefined }, typed).errors).toEqual([
      `type: Invalid value: "Opaque": field is immutable`,
    ]);
  });

  it("keeps an immutable secret's data and immutable flag", () => {
    const frozen = { ...old, immutable: true };
    expect(updateErrors(secretsResource, { ...frozen, stringData: { a: "changed" } }, frozen).errors).toEqual([
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
    expect(updateErrors(secretsResource, { ...frozen, immutable: false }, frozen).errors).toEqual([
      "immutable: Forbidden: field is immutable when `immutable` is set",
    ]);
    expect(updateErrors(secretsResource, { ...frozen, metadata: { ...frozen.metadata, labels: { a: "b" } } }, frozen).errors).toEqual([]);
  });
});

describe("Secret table and selectors", () => {
  it("shows TYPE and DATA and selects by type", () => {
    const object = { ...secret({ data: { a: "", b: "" } }), type: "kubernetes.io/basic-auth" };
    expect(cells(secretsResource, object)).toMatchObject({ Type: "kubernetes.io/basic-auth", Data: 2 });
    expect(secretsResource.fieldSelectors?.["type"]?.(object)).toBe("kubernetes.io/basic-auth");
  });
});
