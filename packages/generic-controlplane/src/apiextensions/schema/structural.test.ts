import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { JSONSchemaProps } from "../../schema/types.js";
import { formatFieldError } from "../../validation/field-errors.js";
import { structuralErrors } from "./index.js";

/**
 * Cases of apiextensions-apiserver's integration test `TestNonStructuralSchemaCondition`
 * (test/integration/validation_test.go): the schema in YAML, and the violations upstream lists in
 * the NonStructuralSchema condition, verbatim. Upstream checks that each listed violation is in the
 * condition message; where the list is the complete set it is compared exactly.
 */

const ROOT = "spec.versions[0].schema.openAPIV3Schema";

function violations(yaml: string): string[] {
  return structuralErrors(parse(yaml) as JSONSchemaProps, ROOT).map(formatFieldError);
}

interface Case {
  desc: string;
  schema: string;
  expected: string[];
  exact?: boolean;
  unexpected?: string[];
}

const cases: Case[] = [
  { desc: "an object root", schema: "type: object", expected: [], exact: true },
  {
    desc: "int-or-string and preserve-unknown-fields true",
    schema: "x-kubernetes-preserve-unknown-fields: true\nx-kubernetes-int-or-string: true\n",
    expected: [`${ROOT}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`],
  },
  {
    desc: "int-or-string and embedded-resource true",
    schema: "type: object\nx-kubernetes-embedded-resource: true\nx-kubernetes-int-or-string: true\n",
    expected: [`${ROOT}.x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`],
  },
  {
    desc: "embedded-resource without preserve-unknown-fields",
    schema: "type: object\nx-kubernetes-embedded-resource: true\n",
    expected: [
      `${ROOT}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
    ],
    exact: true,
  },
  {
    desc: "embedded-resource without preserve-unknown-fields, but properties",
    schema:
      "type: object\nx-kubernetes-embedded-resource: true\nproperties:\n apiVersion:\n   type: string\n kind:\n   type: string\n metadata:\n   type: object\n",
    expected: [],
    exact: true,
  },
  {
    desc: "embedded-resource with preserve-unknown-fields",
    schema: "type: object\nx-kubernetes-embedded-resource: true\nx-kubernetes-preserve-unknown-fields: true\n",
    expected: [],
    exact: true,
  },
  {
    desc: "embedded-resource with wrong type",
    schema: "type: array\nx-kubernetes-embedded-resource: true\nx-kubernetes-preserve-unknown-fields: true\n",
    expected: [`${ROOT}.type: Invalid value: "array": must be object if x-kubernetes-embedded-resource is true`],
  },
  {
    desc: "embedded-resource with empty type",
    schema: 'type: ""\nx-kubernetes-embedded-resource: true\nx-kubernetes-preserve-unknown-fields: true\n',
    expected: [`${ROOT}.type: Required value: must be object if x-kubernetes-embedded-resource is true`],
  },
  {
    desc: "no top-level type",
    schema: 'type: ""\n',
    expected: [`${ROOT}.type: Required value: must not be empty at the root`],
    exact: true,
  },
  {
    desc: "non-object top-level type",
    schema: 'type: "integer"\n',
    expected: [`${ROOT}.type: Invalid value: "integer": must be object at the root`],
    exact: true,
  },
  {
    desc: "forbidden in nested value validation",
    schema: `
type: object
properties:
 foo:
   type: string
not:
 type: string
 additionalProperties: true
 title: hello
 description: world
 nullable: true
allOf:
- properties:
   foo:
     type: string
     additionalProperties: true
     title: hello
     description: world
     nullable: true
anyOf:
- items:
   type: string
   additionalProperties: true
   title: hello
   description: world
   nullable: true
oneOf:
- properties:
   foo:
     type: string
     additionalProperties: true
     title: hello
     description: world
     nullable: true
`,
    expected: [
      `${ROOT}.anyOf[0].items.type: Forbidden: must be empty to be structural`,
      `${ROOT}.anyOf[0].items.additionalProperties: Forbidden: must be undefined to be structural`,
      `${ROOT}.anyOf[0].items.title: Forbidden: must be empty to be structural`,
      `${ROOT}.anyOf[0].items.description: Forbidden: must be empty to be structural`,
      `${ROOT}.anyOf[0].items.nullable: Forbidden: must be false to be structural`,
      `${ROOT}.allOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
      `${ROOT}.allOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural`,
      `${ROOT}.allOf[0].properties[foo].title: Forbidden: must be empty to be structural`,
      `${ROOT}.allOf[0].properties[foo].description: Forbidden: must be empty to be structural`,
      `${ROOT}.allOf[0].properties[foo].nullable: Forbidden: must be false to be structural`,
      `${ROOT}.oneOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
      `${ROOT}.oneOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural`,
      `${ROOT}.oneOf[0].properties[foo].title: Forbidden: must be empty to be structural`,
      `${ROOT}.oneOf[0].properties[foo].description: Forbidden: must be empty to be structural`,
      `${ROOT}.oneOf[0].properties[foo].nullable: Forbidden: must be false to be structural`,
      `${ROOT}.not.type: Forbidden: must be empty to be structural`,
      `${ROOT}.not.additionalProperties: Forbidden: must be undefined to be structural`,
      `${ROOT}.not.title: Forbidden: must be empty to be structural`,
      `${ROOT}.not.description: Forbidden: must be empty to be structural`,
      `${ROOT}.not.nullable: Forbidden: must be false to be structural`,
      `${ROOT}.items: Required value: because it is defined in ${ROOT}.anyOf[0].items`,
    ],
    exact: true,
    unexpected: [`${ROOT}.not.default`],
  },
  {
    desc: "invalid regex pattern",
    schema: 'type: object\nproperties:\n foo:\n   type: string\n   pattern: "+"\n',
    expected: [
      `${ROOT}.properties[foo].pattern: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``,
    ],
    exact: true,
  },
  {
    desc: "forbidden vendor extensions in nested value validation",
    schema: `
type: object
properties:
 int-or-string:
   x-kubernetes-int-or-string: true
 embedded-resource:
   type: object
   x-kubernetes-embedded-resource: true
   x-kubernetes-preserve-unknown-fields: true
not:
 properties:
   int-or-string:
     x-kubernetes-int-or-string: true
   embedded-resource:
     x-kubernetes-embedded-resource: true
     x-kubernetes-preserve-unknown-fields: true
allOf:
- properties:
   int-or-string:
     x-kubernetes-int-or-string: true
   embedded-resource:
     x-kubernetes-embedded-resource: true
     x-kubernetes-preserve-unknown-fields: true
anyOf:
- properties:
   int-or-string:
     x-kubernetes-int-or-string: true
   embedded-resource:
     x-kubernetes-embedded-resource: true
     x-kubernetes-preserve-unknown-fields: true
oneOf:
- properties:
   int-or-string:
     x-kubernetes-int-or-string: true
   embedded-resource:
     x-kubernetes-embedded-resource: true
     x-kubernetes-preserve-unknown-fields: true
`,
    expected: ["allOf", "anyOf", "oneOf", "not"].flatMap((j) => {
      const at = j === "not" ? `${ROOT}.not` : `${ROOT}.${j}[0]`;
      return [
        `${at}.properties[embedded-resource].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
        `${at}.properties[embedded-resource].x-kubernetes-embedded-resource: Forbidden: must be false to be structural`,
        `${at}.properties[int-or-string].x-kubernetes-int-or-string: Forbidden: must be false to be structural`,
      ];
    }),
    exact: true,
  },
  {
    desc: "missing types with extensions",
    schema: `
properties:
 foo:
   properties:
     a: {}
 bar:
   items:
     additionalProperties:
       properties:
         a: {}
       items: {}
 abc:
   additionalProperties:
     properties:
       a:
         items:
           additionalProperties:
             items:
 json:
   x-kubernetes-preserve-unknown-fields: true
   properties:
     a: {}
 int-or-string:
   x-kubernetes-int-or-string: true
   properties:
     a: {}
`,
    expected: [
      `${ROOT}.properties[foo].properties[a].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[foo].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[int-or-string].properties[a].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[json].properties[a].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[abc].additionalProperties.properties[a].items.additionalProperties.type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[abc].additionalProperties.properties[a].items.type: Required value: must not be empty for specified array items`,
      `${ROOT}.properties[abc].additionalProperties.properties[a].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[abc].additionalProperties.type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[abc].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[bar].items.additionalProperties.items.type: Required value: must not be empty for specified array items`,
      `${ROOT}.properties[bar].items.additionalProperties.properties[a].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[bar].items.additionalProperties.type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[bar].items.type: Required value: must not be empty for specified array items`,
      `${ROOT}.properties[bar].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.type: Required value: must not be empty at the root`,
    ],
    exact: true,
  },
  {
    desc: "int-or-string variants",
    schema: `
type: object
properties:
 a:
   x-kubernetes-int-or-string: true
 b:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: integer
   - type: string
   allOf:
   - pattern: abc
 c:
   x-kubernetes-int-or-string: true
   allOf:
   - anyOf:
     - type: integer
     - type: string
   - pattern: abc
   - pattern: abc
 d:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: integer
   - type: string
     pattern: abc
 e:
   x-kubernetes-int-or-string: true
   allOf:
   - anyOf:
     - type: integer
     - type: string
       pattern: abc
   - pattern: abc
 f:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: integer
   - type: string
   - pattern: abc
 g:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: string
   - type: integer
`,
    expected: [
      `${ROOT}.properties[d].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[d].anyOf[1].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[e].allOf[0].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[e].allOf[0].anyOf[1].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[f].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[f].anyOf[1].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[g].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[g].anyOf[1].type: Forbidden: must be empty to be structural`,
    ],
    exact: true,
    unexpected: [`${ROOT}.properties[a]`, `${ROOT}.properties[b]`, `${ROOT}.properties[c]`],
  },
  {
    desc: "forbidden additionalProperties at the root",
    schema: "type: object\nadditionalProperties: false\n",
    expected: [`${ROOT}.additionalProperties: Forbidden: must not be used at the root`],
    exact: true,
  },
  {
    desc: "structural incomplete",
    schema: `
type: object
properties:
 b:
   type: object
   properties:
     b:
       type: array
 c:
   type: array
   items:
     type: object
 d:
   type: array
not:
 properties:
   a: {}
   b:
     not:
       properties:
         a: {}
         b:
           items: {}
   c:
     items:
       not:
         items:
           properties:
             a: {}
   d:
     items: {}
allOf:
- properties:
   e: {}
anyOf:
- properties:
   f: {}
oneOf:
- properties:
   g: {}
`,
    expected: [
      `${ROOT}.properties[d].items: Required value: because it is defined in ${ROOT}.not.properties[d].items`,
      `${ROOT}.properties[a]: Required value: because it is defined in ${ROOT}.not.properties[a]`,
      `${ROOT}.properties[b].properties[a]: Required value: because it is defined in ${ROOT}.not.properties[b].not.properties[a]`,
      `${ROOT}.properties[b].properties[b].items: Required value: because it is defined in ${ROOT}.not.properties[b].not.properties[b].items`,
      `${ROOT}.properties[c].items.items: Required value: because it is defined in ${ROOT}.not.properties[c].items.not.items`,
      `${ROOT}.properties[e]: Required value: because it is defined in ${ROOT}.allOf[0].properties[e]`,
      `${ROOT}.properties[f]: Required value: because it is defined in ${ROOT}.anyOf[0].properties[f]`,
      `${ROOT}.properties[g]: Required value: because it is defined in ${ROOT}.oneOf[0].properties[g]`,
    ],
  },
  {
    desc: "structural complete",
    schema: `
type: object
properties:
 a:
   type: string
 b:
   type: object
   properties:
     a:
       type: string
     b:
       type: array
       items:
         type: string
 c:
   type: array
   items:
     type: array
     items:
       type: object
       properties:
         a:
           type: string
 d:
   type: array
   items:
     type: string
 e:
   type: string
 f:
   type: string
 g:
   type: string
not:
 properties:
   a: {}
   b:
     not:
       properties:
         a: {}
         b:
           items: {}
   c:
     items:
       not:
         items:
           properties:
             a: {}
   d:
     items: {}
allOf:
- properties:
   e: {}
anyOf:
- properties:
   f: {}
oneOf:
- properties:
   g: {}
`,
    expected: [],
    exact: true,
  },
  {
    desc: "metadata with non-properties",
    schema: "type: object\nproperties:\n metadata:\n   minimum: 42.0\n",
    expected: [
      `${ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${ROOT}.properties[metadata].type: Required value: must not be empty for specified object fields`,
    ],
  },
  {
    desc: "metadata with other properties",
    schema:
      'type: object\nproperties:\n metadata:\n   properties:\n     name:\n       pattern: "^[a-z]+$"\n     labels:\n       type: object\n       maxLength: 4\n',
    expected: [
      `${ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${ROOT}.properties[metadata].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[metadata].properties[name].type: Required value: must not be empty for specified object fields`,
    ],
  },
  {
    desc: "metadata with name property",
    schema:
      'type: object\nproperties:\n metadata:\n   type: object\n   properties:\n     name:\n       type: string\n       pattern: "^[a-z]+$"\n',
    expected: [],
    exact: true,
  },
  {
    desc: "metadata with name and generateName property",
    schema:
      'type: object\nproperties:\n metadata:\n   type: object\n   properties:\n     name:\n       type: string\n       pattern: "^[a-z]+$"\n     generateName:\n       type: string\n       pattern: "^[a-z]+$"\n',
    expected: [],
    exact: true,
  },
  {
    desc: "metadata under junctors",
    schema: `
type: object
properties:
 metadata:
   type: object
   properties:
     name:
       type: string
       pattern: "^[a-z]+$"
allOf:
- properties:
   metadata: {}
anyOf:
- properties:
   metadata: {}
oneOf:
- properties:
   metadata: {}
not:
 properties:
   metadata: {}
`,
    expected: [
      `${ROOT}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
      `${ROOT}.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
      `${ROOT}.oneOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
      `${ROOT}.not.properties[metadata]: Forbidden: must not be specified in a nested context`,
    ],
    exact: true,
  },
  {
    desc: "missing items for array",
    schema: "type: object\nproperties:\n slice:\n   type: array\n",
    expected: [`${ROOT}.properties[slice].items: Required value: must be specified`],
    exact: true,
  },
];

describe("structuralErrors (ported from TestNonStructuralSchemaCondition)", () => {
  it.each(cases)("$desc", ({ schema, expected, exact, unexpected }) => {
    const got = violations(schema);
    if (exact === true) expect([...got].sort()).toEqual([...expected].sort());
    else for (const v of expected) expect(got).toContain(v);
    for (const u of unexpected ?? []) expect(got.some((g) => g.startsWith(u))).toBe(false);
  });

  it("sorts violations by their text, as the condition message lists them", () => {
    const got = violations("properties:\n b: {}\n a: {}\n");
    expect(got).toEqual([...got].sort());
    expect(got).toHaveLength(3);
  });

  it("reports the embedded metadata type and the apiVersion/kind types of embedded resources", () => {
    const got = violations(`
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      apiVersion: {type: integer}
      kind: {type: string}
      metadata: {type: string}
      spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`);
    expect(got).toEqual([
      `${ROOT}.properties[template].properties[apiVersion].type: Invalid value: "integer": must be string`,
      `${ROOT}.properties[template].properties[metadata].type: Invalid value: "string": must be object`,
    ]);
  });

  it("forbids additionalProperties on embedded resources", () => {
    expect(
      violations(
        "type: object\nproperties:\n  x:\n    type: object\n    x-kubernetes-embedded-resource: true\n    x-kubernetes-preserve-unknown-fields: true\n    additionalProperties: {type: string}\n",
      ),
    ).toEqual([`${ROOT}.properties[x].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`]);
  });
});
