import { ControlPlaneError, badRequest, type KubeObject } from "@kubekit/generic-controlplane";
import { readBody, type RequestContext } from "@kubekit/generic-controlplane/server";

/** Writes `body` as JSON, which every client these subresources serve accepts. */
export function writeJson(ctx: RequestContext, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  ctx.res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  ctx.res.end(text);
}

/** The request body as a JSON object (kubectl, client-go and the scheduler send these as JSON). */
export async function readJsonObject(ctx: RequestContext, maxBytes: number, kind: string): Promise<KubeObject> {
  const type = (ctx.req.headers["content-type"] ?? "application/json").split(";")[0]!.trim();
  const body = await readBody(ctx.req, maxBytes);
  if (type === "application/vnd.kubernetes.protobuf") {
    throw new ControlPlaneError(
      "UnsupportedMediaType",
      `the body of the request was in an unknown format: protobuf is not supported for ${kind} - accepted media types include: application/json`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw badRequest(`the body of the request is not a ${kind} object`);
  return parsed as KubeObject;
}
