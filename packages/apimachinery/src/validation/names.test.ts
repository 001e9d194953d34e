import { describe, expect, it } from "vitest";
import {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validatePathSegmentName,
} from "./names.js";

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QNAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe("isDNS1123Label", () => {
  it.each(["a", "ab", "a-b", "0", "1-2", "a".repeat(63), "abc-123"])("accepts %j", (value) => {
    expect(isDNS1123Label(value)).toEqual([]);
  });
  it.each([
    ["", [LABEL_MSG]],
    ["A", [LABEL_MSG]],
    ["-a", [LABEL_MSG]],
    ["a-", [LABEL_MSG]],
    ["a_b", [LABEL_MSG]],
    ["a.b", ["must not contain dots"]],
    ["a".repeat(64), ["must be no more than 63 characters"]],
  ])("rejects %j", (value, messages) => {
    expect(isDNS1123Label(value)).toEqual(messages);
  });
});

describe("isDNS1123Subdomain", () => {
  it.each(["a", "a.b", "example.com", "a-1.b-2.c", `${"a".repeat(63)}.${"b".repeat(63)}`])("accepts %j", (value) => {
    expect(isDNS1123Subdomain(value)).toEqual([]);
  });
  it.each([
    ["", [SUBDOMAIN_MSG]],
    ["Foo", [SUBDOMAIN_MSG]],
    ["a..b", [SUBDOMAIN_MSG]],
    [".a", [SUBDOMAIN_MSG]],
    ["a.", [SUBDOMAIN_MSG]],
    ["a b", [SUBDOMAIN_MSG]],
    ["a".repeat(254), ["must be no more than 253 characters"]],
  ])("rejects %j", (value, messages) => {
    expect(isDNS1123Subdomain(value)).toEqual(messages);
  });
});

describe("isQualifiedName", () => {
  it.each(["a", "A", "MyName", "my.name", "123-abc", "a_b", "example.com/MyName", "k8s.io/initial-events-end", "a".repeat(63)])(
    "accepts %j",
    (value) => {
      expect(isQualifiedName(value)).toEqual([]);
    },
  );
  it.each([
    ["", ["name part must be non-empty", QNAME_MSG]],
    ["-a", [QNAME_MSG]],
    ["a-", [QNAME_MSG]],
    ["a b", [QNAME_MSG]],
    ["a".repeat(64), ["name part must be no more than 63 characters"]],
    ["/a", ["prefix part must be non-empty"]],
    ["Example.com/a", [`prefix part ${SUBDOMAIN_MSG}`]],
    ["example.com/", ["name part must be non-empty", QNAME_MSG]],
  ])("rejects %j", (value, messages) => {
    expect(isQualifiedName(value)).toEqual(messages);
  });
  it("rejects more than one slash with the whole-name message", () => {
    expect(isQualifiedName("a/b/c")).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe("isValidLabelValue", () => {
  it.each(["", "a", "MyValue", "my_value", "12345", "a.b-c_d", "x".repeat(63)])("accepts %j", (value) => {
    expect(isValidLabelValue(value)).toEqual([]);
  });
  it.each(["-a", "a-", "a b", "a/b", "ä"])("rejects %j", (value) => {
    expect(isValidLabelValue(value)).toEqual([
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });
  it("limits length to 63", () => {
    expect(isValidLabelValue("x".repeat(64))).toEqual(["must be no more than 63 characters"]);
  });
  // Go's len(string) counts UTF-8 bytes: 2 for "é", 3 for "€" and for a lone surrogate (written as
  // U+FFFD), 4 for a character outside the BMP (two UTF-16 code units).
  it.each([
    ["é", 2],
    ["€", 3],
    ["\ud800", 3],
    ["\udc00", 3],
    ["😀", 4],
  ])("counts %j as %d bytes against the limit", (character, bytes) => {
    const fits = Math.floor(63 / bytes);
    const tooLong = "must be no more than 63 characters";
    expect(isValidLabelValue(character.repeat(fits) + "a".repeat(63 - fits * bytes))).not.toContain(tooLong);
    expect(isValidLabelValue(character.repeat(fits) + "a".repeat(64 - fits * bytes))).toContain(tooLong);
  });
});

describe("isConfigMapKey", () => {
  const regexMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
  it.each(["a", "key.name", "KEY_NAME", "key-name", ".dotfile", "a..b", "-", "_"])("accepts %j", (value) => {
    expect(isConfigMapKey(value)).toEqual([]);
  });
  it.each([
    ["", [regexMsg]],
    ["a b", [regexMsg]],
    ["a/b", [regexMsg]],
    [".", ["must not be '.'"]],
    ["..", ["must not be '..'"]],
    ["..a", ["must not start with '..'"]],
    ["a".repeat(254), ["must be no more than 253 characters"]],
  ])("rejects %j", (value, messages) => {
    expect(isConfigMapKey(value)).toEqual(messages);
  });
});

describe("path segment names", () => {
  it.each(["a", "A B", "foo:bar", "...", "a.b"])("accepts %j", (value) => {
    expect(isValidPathSegmentName(value)).toEqual([]);
  });
  it.each([
    [".", ["may not be '.'"]],
    ["..", ["may not be '..'"]],
    ["a/b", ["may not contain '/'"]],
    ["a%b/", ["may not contain '/'", "may not contain '%'"]],
  ])("rejects %j", (value, messages) => {
    expect(isValidPathSegmentName(value)).toEqual(messages);
  });
  it("allows '.' as a generateName prefix but not '/'", () => {
    expect(validatePathSegmentName(".", true)).toEqual([]);
    expect(validatePathSegmentName("a/", true)).toEqual(["may not contain '/'"]);
  });
});

describe("generateName prefixes", () => {
  it.each(["demo-", "a-", "x.y-", "abc"])("DNS subdomain accepts prefix %j", (prefix) => {
    expect(nameIsDNSSubdomain(prefix, true)).toEqual([]);
  });
  it("still checks the rest of a prefix", () => {
    expect(nameIsDNSSubdomain("Demo-", true)).toHaveLength(1);
    expect(nameIsDNSLabel("a.b-", true)).toEqual(["must not contain dots"]);
  });
  it("does not allow a trailing dash in a full name", () => {
    expect(nameIsDNSSubdomain("demo-", false)).toHaveLength(1);
    expect(nameIsDNSLabel("demo-", false)).toHaveLength(1);
  });
});
