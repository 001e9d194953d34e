import { CcmE2eError } from "../errors.js";

/** Fails the running test with upstream's assertion text (`framework.Failf`). */
export function fail(message: string): never {
  throw new CcmE2eError("assertion-failed", message);
}

/** `framework.ExpectNoError` / `gomega.Expect(...).To(Equal(...))` with the message shown on failure. */
export function expectEqual<T>(actual: T, expected: T, message: string): void {
  if (!Object.is(actual, expected)) fail(`${message}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Ends the running test as skipped with the reason (`e2eskipper.Skipf`). */
export function skip(reason: string): never {
  throw new CcmE2eError("skipped", reason);
}
