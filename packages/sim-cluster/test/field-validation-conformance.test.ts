// Port of test/e2e/apimachinery/field_validation.go, "[sig-api-machinery] FieldValidation should
// detect unknown and duplicate fields of a typed object [Conformance]" and "should detect unknown
// metadata fields of a typed object [Conformance]", on upstream's Deployment with upstream's
// bodies and assertions (the request the RESTClient sends: POST with fieldManager and Strict).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";

let cluster: SimCluster;
const ns = "field-validation-1";

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  const created = await fetch(`${cluster.url}/api/v1/namespaces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name: ns } }),
  });
  expect(created.status).toBe(201);
}, 30_000);

afterAll(async () => {
  await cluster?.close();
});

/** The error text client-go's RESTClient gives for a Status answer: its message. */
async function postDeployment(body: string): Promise<{ status: number; message: string }> {
  const response = await fetch(
    `${cluster.url}/apis/apps/v1/namespaces/${ns}/deployments?fieldManager=field_validation_mgr&fieldValidation=Strict`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    },
  );
  const answer = (await response.json()) as { message?: string };
  return { status: response.status, message: answer.message ?? "" };
}

describe("[sig-api-machinery] FieldValidation", { timeout: 20_000 }, () => {
  it("should detect unknown and duplicate fields of a typed object", async () => {
    const invalidMetaDeployment = `{
		"apiVersion": "apps/v1",
		"kind": "Deployment",
		"metadata": {
			"name": "my-dep",
			"labels": {"app": "nginx"}
		},
		"spec": {
			"unknownField": "foo",
			"replicas": 2,
			"replicas": 3,
			"selector": {
				"matchLabels": {
					"app": "nginx"
				}
			},
			"template": {
				"metadata": {
					"labels": {
						"app": "nginx"
					}
				},
				"spec": {
					"containers": [{
						"name":  "nginx",
						"image": "nginx:latest"
					}]
				}
			}
		}
	}`;
    const err = await postDeployment(invalidMetaDeployment);
    expect(err.status).toBe(400);
    expect(err.message).toContain(`strict decoding error: unknown field "spec.unknownField", duplicate field "spec.replicas"`);
  });

  it("should detect unknown metadata fields of a typed object", async () => {
    const invalidMetaDeployment = `{
		"apiVersion": "apps/v1",
		"kind": "Deployment",
		"metadata": {
			"name": "my-dep",
			"unknownMeta": "foo",
			"labels": {"app": "nginx"}
		},
		"spec": {
			"selector": {
				"matchLabels": {
					"app": "nginx"
				}
			},
			"template": {
				"metadata": {
					"labels": {
						"app": "nginx"
					}
				},
				"spec": {
					"containers": [{
						"name":  "nginx",
						"image": "nginx:latest"
					}]
				}
			}
		}
	}`;
    const err = await postDeployment(invalidMetaDeployment);
    expect(err.status).toBe(400);
    expect(err.message).toContain(`strict decoding error: unknown field "metadata.unknownMeta"`);
  });
});
