/**
 * Ports the FieldsV1 cases of apimachinery `managedfields/internal/fields_test.go` (TestFieldsRoundTrip,
 * TestFieldsToSetError) and the set-path printing structured-merge-diff's conflicts use
 * (`fieldpath/path_test.go` TestPathString). Left out: the SetToFields error case (a TS set cannot hold
 * an unencodable path).
 */
import { describe, expect, it } from "vitest";
import { FieldsV1Error, fromFieldsV1, makePath, printPath, sortPaths, toFieldsV1 } from "./fields-v1.js";

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

  it("prints paths as structured-merge-diff does", () => {
    expect(printPath(makePath("f:spec", "f:replicas"))).toBe(".spec.replicas");
    expect(printPath(makePath("f:spec", "f:ports", 'k:{"name":"a","port":80}', "f:port"))).toBe('.spec.ports[name="a",port=80].port');
    expect(printPath(makePath("f:metadata", "f:finalizers", 'v:"a.io/x"'))).toBe('.metadata.finalizers[="a.io/x"]');
    expect(printPath(makePath("f:list", "i:0"))).toBe(".list[0]");
  });
});
