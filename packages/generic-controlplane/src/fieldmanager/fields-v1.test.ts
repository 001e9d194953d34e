/**
 * Ports the FieldsV1 cases of apimachinery `managedfields/internal/fields_test.go` (TestFieldsRoundTrip,
 * TestFieldsToSetError) and the set-path printing structured-merge-diff's conflicts use
 * (`fieldpath/path_test.go` TestPathString). Left out: the SetToFields error case (a TS set cannot hold
 * an unencodable path).
 */
import { describe, expect, it } from "vitest";
import { sortedExactJson } from "../api/exact-json.js";
import { FieldsV1Error, fromFieldsV1, keyElement, makePath, printPath, sortPaths, toFieldsV1, valueElement } from "./fields-v1.js";

describe("FieldsV1", () => {
  it.each([
    { "f:metadata": { "f:labels": { "f:app": {} } }, "f:data": { ".": {}, "f:a": {} } },
    { "f:spec": { "f:containers": { 'k:{"name":"c"}': { "f:image": {}, "f:name": {} } } } },
    {
      "f:metadata": { "f:finalizers": { ".": {}, 'v:"a/b"': {} } },
      "f:spec": { ".": {}, "f:ports": { ".": {}, 'k:{"port":80}': { ".": {}, "f:port": {} } } },
    },
    { "v:3": { "f:alsoPi": {} }, "v:3.1415": { "f:pi": {} }, "v:false": { "f:notTrue": {} }, "i:5": { "f:i": {} } },
  ])("round-trips %j", (fields) => {
    expect(toFieldsV1(fromFieldsV1(fields))).toEqual(fields);
  });

  it("keeps members that have children apart from paths that only lead to them", () => {
    const members = fromFieldsV1({ "f:data": { ".": {}, "f:a": {} }, "f:spec": { "f:x": {} } });
    expect(sortPaths(members)).toEqual([makePath("f:data"), makePath("f:data", "f:a"), makePath("f:spec", "f:x")]);
  });

  it.each([
    [{ "f:a": 1 }, /expected an object/],
    [{ "x:a": {} }, /unexpected path element "x:a"/],
    [{ "k:{nope": {} }, /does not hold JSON/],
    [[], /expected an object/],
  ])("refuses a malformed trie %j", (fields, message) => {
    expect(() => fromFieldsV1(fields)).toThrow(FieldsV1Error);
    expect(() => fromFieldsV1(fields)).toThrow(message);
  });

  it("refuses a key without JSON on every decoding, after decoding keys with JSON", () => {
    const good = { "f:spec": { "f:ports": { 'k:{"port":80}': { "f:port": {} } } } };
    expect(toFieldsV1(fromFieldsV1(good))).toEqual(good);
    expect(toFieldsV1(fromFieldsV1(good))).toEqual(good);
    for (let i = 0; i < 2; i++) expect(() => fromFieldsV1({ "f:spec": { 'k:{"port":80': {} } })).toThrow(/does not hold JSON/);
    expect(() => fromFieldsV1({ "f:spec": { "x:": {} } })).toThrow(/unexpected path element "x:"/);
    expect(() => fromFieldsV1({ "": {} })).toThrow(/unexpected path element ""/);
    const long = `k:{"name":"${"a".repeat(300)}"}`;
    for (let i = 0; i < 2; i++) expect(sortPaths(fromFieldsV1({ [long]: {} }))).toEqual([makePath(long)]);
    expect(() => fromFieldsV1({ [long.slice(0, -1)]: {} })).toThrow(/does not hold JSON/);
  });

  it("prints paths as structured-merge-diff does", () => {
    expect(printPath(makePath("f:spec", "f:replicas"))).toBe(".spec.replicas");
    expect(printPath(makePath("f:spec", "f:ports", 'k:{"name":"a","port":80}', "f:port"))).toBe('.spec.ports[name="a",port=80].port');
    expect(printPath(makePath("f:metadata", "f:finalizers", 'v:"a.io/x"'))).toBe('.metadata.finalizers[="a.io/x"]');
    expect(printPath(makePath("f:list", "i:0"))).toBe(".list[0]");
  });

  it.each([
    { type: "Ready" },
    { port: 80, protocol: "TCP" },
    { protocol: "UDP", port: 53, name: "dns" },
    { 'a"b': "c\\d\u2028", "": "" },
    { flag: false, n: 1.5, e: 1e21 },
    JSON.parse('{"__proto__":"x","z":"y"}') as Record<string, unknown>,
    { big: 2n ** 62n, x: "y" },
    { nested: { b: 1, a: 2 } },
    { nothing: null, missing: undefined, nan: Number.NaN },
    {},
  ])("spells key $# as its JSON with sorted keys", (key) => {
    expect(keyElement(key)).toBe(`k:${sortedExactJson(key)}`);
  });

  it.each(["a/b", 'q"\u2028', "", 0, -1.25, 1e300, true, null, 2n ** 62n, { b: 1, a: [2] }, [1, "x"], Number.POSITIVE_INFINITY])(
    "spells set value $# as its JSON with sorted keys",
    (value) => {
      expect(valueElement(value)).toBe(`v:${sortedExactJson(value)}`);
    },
  );
});
