import { badRequest, methodNotAllowed, notAcceptable, notFound } from "../api/errors/index.js";
import type { KubeObject } from "../api/types.js";
import type { ResourceStore } from "../registry/types.js";
import { readBody } from "./body.js";
import type { RequestContext } from "./context.js";
import type { HandlerStage } from "./filters/stages.js";
import { decodeBody } from "./handlers/decode/decode-object.js";
import { negotiateObjectFormat } from "./handlers/negotiation/negotiation.js";
import { writeEncoded } from "./handlers/responsewriters/respond.js";
import { openIdConfiguration, openIdKeySet } from "../authn/oidc-discovery.js";
import { createToken, type TokenRequest } from "../authn/token-request.js";
import { reviewToken, type TokenReview } from "../authn/token-review.js";
import type { ServiceAccountTokenConfig } from "../authn/serviceaccount/tokens.js";
import type { AuthenticationResult } from "../authn/types.js";

export const TOKEN_REVIEWS_PATH = "/apis/authentication.k8s.io/v1/tokenreviews";
export const OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration";
export const JWKS_PATH = "/openid/v1/jwks";

export interface AuthenticationEndpointsEnv {
  config: ServiceAccountTokenConfig;
  /** `--service-account-jwks-uri`: where the discovery document says the keys are. */
  jwksUri?: string;
  maxExpirationSeconds?: number;
  maxBodyBytes: number;
  serviceAccounts: ResourceStore | undefined;
  secrets: ResourceStore | undefined;
  /** The server's bearer token authentication with `system:authenticated` added, for TokenReview; undefined serves no TokenReview. */
  reviewToken?: (token: string, audiences: readonly string[] | undefined) => Promise<AuthenticationResult | undefined>;
}

async function readObject(ctx: RequestContext, maxBodyBytes: number): Promise<Record<string, unknown>> {
  const body = await readBody(ctx.req, maxBodyBytes);
  const parsed = body.length === 0 ? {} : decodeBody(body, ctx.req.headers["content-type"], ctx.protobuf).value;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("the body of the request must be an object");
  return parsed as Record<string, unknown>;
}

function responseFormat(ctx: RequestContext) {
  const format = negotiateObjectFormat(ctx.req.headers.accept, false);
  if (format === undefined) throw notAcceptable();
  return format;
}

/** A 404 from the store stays a 404; "not there" is how the store says it, with its upstream wording. */
async function get(store: ResourceStore | undefined, resource: string, namespace: string, name: string): Promise<KubeObject> {
  if (store === undefined) throw notFound({ group: "", resource }, name);
  return store.get(namespace, name);
}

/**
 * The authentication API next to the resources: `serviceaccounts/<name>/token` (TokenRequest, what
 * `kubectl create token` posts), `tokenreviews` (TokenReview) and the service account issuer's
 * OpenID discovery (`/.well-known/openid-configuration`, `/openid/v1/jwks`).
 */
export function authenticationEndpoints(env: AuthenticationEndpointsEnv): HandlerStage {
  return {
    name: "authentication-endpoints",
    async handle(ctx) {
      const info = ctx.info;
      if (
        info?.isResourceRequest &&
        info.group === "" &&
        info.version === "v1" &&
        info.resource === "serviceaccounts" &&
        info.subresource === "token"
      ) {
        if (info.verb !== "create") throw methodNotAllowed(ctx.method, ctx.path);
        const format = responseFormat(ctx);
        const request = (await readObject(ctx, env.maxBodyBytes)) as TokenRequest;
        const namespace = info.namespace ?? "";
        const result = await createToken(
          {
            config: env.config,
            getServiceAccount: (ns, name) => get(env.serviceAccounts, "serviceaccounts", ns, name),
            getSecret: (ns, name) => get(env.secrets, "secrets", ns, name),
            ...(env.maxExpirationSeconds !== undefined ? { maxExpirationSeconds: env.maxExpirationSeconds } : {}),
          },
          namespace,
          info.name,
          request,
        );
        writeEncoded(ctx, 201, result, format);
        return true;
      }
      if (ctx.path === TOKEN_REVIEWS_PATH && env.reviewToken !== undefined) {
        if (ctx.method !== "POST") throw methodNotAllowed(ctx.method, ctx.path);
        const format = responseFormat(ctx);
        const review = (await readObject(ctx, env.maxBodyBytes)) as TokenReview;
        writeEncoded(ctx, 201, await reviewToken(review, env.reviewToken), format);
        return true;
      }
      if (ctx.path === OPENID_CONFIGURATION_PATH || ctx.path === JWKS_PATH) {
        const configuration = openIdConfiguration(env.config.issuer, env.config.keys, env.jwksUri);
        if (configuration === undefined) return false;
        if (ctx.method !== "GET" && ctx.method !== "HEAD") throw methodNotAllowed(ctx.method, ctx.path);
        // Relying parties cache these; keys change only on a restart with rotated keys.
        if (ctx.path === OPENID_CONFIGURATION_PATH) writeJsonCached(ctx, configuration, "application/json");
        else writeJsonCached(ctx, await openIdKeySet(env.config.keys), "application/jwk-set+json");
        return true;
      }
      return false;
    },
  };
}

function writeJsonCached(ctx: RequestContext, body: unknown, contentType: string): void {
  const text = JSON.stringify(body);
  ctx.res.writeHead(200, {
    "Content-Type": contentType,
    "Cache-Control": "public, max-age=3600",
    "Content-Length": Buffer.byteLength(text),
  });
  ctx.res.end(ctx.method === "HEAD" ? undefined : text);
}
