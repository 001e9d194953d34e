import { isNotFound } from "@kubekit/client";
import { fail } from "./assert.js";
import type { TestContext } from "./context.js";
import { LOAD_BALANCER_CLEANUP_FINALIZER } from "./jig.js";
import { poll } from "./poll.js";
import { SERVICES, type Service } from "./resources.js";

/** `e2eservice.WaitForServiceUpdatedWithFinalizer`: until the finalizer is (or is not) on the Service. */
export async function waitForServiceUpdatedWithFinalizer(ctx: TestContext, name: string, present: boolean): Promise<void> {
  try {
    await poll(
      `service ${ctx.namespace}/${name} to ${present ? "have" : "not have"} the finalizer ${LOAD_BALANCER_CLEANUP_FINALIZER}`,
      { timeoutMs: ctx.timeouts.lbCreate, signal: ctx.signal },
      async () => {
        const svc = await ctx.client.get<Service>(SERVICES, ctx.namespace, name);
        return (svc.metadata.finalizers ?? []).includes(LOAD_BALANCER_CLEANUP_FINALIZER) === present ? true : undefined;
      },
    );
  } catch (error) {
    fail(`Failed to wait for service to ${present ? "add" : "remove"} finalizer: ${(error as Error).message}`);
  }
}

/** `e2eservice.WaitForServiceDeletedWithFinalizer`: delete, then wait until the Service is gone. */
export async function waitForServiceDeletedWithFinalizer(ctx: TestContext, name: string, signal?: AbortSignal): Promise<void> {
  await ctx.client.delete(SERVICES, ctx.namespace, name).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
  try {
    await poll(`service ${ctx.namespace}/${name} to be deleted`, { timeoutMs: ctx.timeouts.lbCreate, signal }, async () => {
      try {
        await ctx.client.get(SERVICES, ctx.namespace, name);
        return undefined;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    });
  } catch (error) {
    fail(`Failed to delete service with finalizer: ${(error as Error).message}`);
  }
}
