import { describe, expect, it } from "vitest";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { flowSchemasResource, priorityLevelConfigurationsResource } from "../resources/flowcontrol.js";
import { selectBuiltinResources } from "../control-plane/builtin-resources.js";
import { createOpenApiDocuments } from "./documents.js";
import { testWidgetsV1, testWidgetsV1beta1 } from "./test-fixtures.js";
import { contentHash } from "./v3.js";

/**
 * The published documents, byte for byte, pinned by their content hashes: a change to how the
 * model is built that changes a single byte of `/openapi/v2` (JSON or protobuf) or of a
 * `/openapi/v3` document fails here. When a change to the documents is meant, update the
 * snapshot (`vitest -u`) and say why in the commit.
 */
const gadgets: ResourceDefinition = {
  group: "gadgets.example.com",
  version: "v1alpha1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  scope: "Cluster",
  statusSubresource: true,
};

const definitions = [
  ...selectBuiltinResources(),
  flowSchemasResource,
  priorityLevelConfigurationsResource,
  testWidgetsV1beta1,
  testWidgetsV1,
  gadgets,
];

describe("the OpenAPI documents as published", () => {
  it("are unchanged for every built-in resource, a custom resource in two versions and one without a schema", () => {
    const documents = createOpenApiDocuments(definitions, { version: "v1.32.0+kubekit-0.0.0" });
    const v3 = Object.fromEntries(
      Object.entries(documents.v3Index().paths).map(([path, { serverRelativeURL }]) => [path, serverRelativeURL.replace(/^.*hash=/, "")]),
    );
    expect({ v2Json: contentHash(documents.v2Json()), v2Protobuf: contentHash(documents.v2Protobuf()), v3 }).toMatchSnapshot();
  });
});
