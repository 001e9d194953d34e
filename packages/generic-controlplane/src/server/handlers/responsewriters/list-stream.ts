import type { ProtobufListParts } from "../../../protobuf/codec.js";
import type { ListPages } from "../../../registry/types.js";
import type { RequestContext } from "../../context.js";
import { drainedOrClosed } from "./drain.js";
import { pageBytes } from "./page-buffers.js";
import { sharedJsonAfterComma, sharedPageJsonAfterCommas } from "./json-cache.js";
import { wantsPretty, type ListShape } from "./respond.js";
import { yamlListItem, yamlText } from "./yaml-text.js";
import { stringifyExactJson } from "../../../api/exact-json.js";

/**
 * How a list body is spelled around its element array, so it can be written element by element:
 * `prefix`, then `first(a) + next(b) + …`, then `close` — or `prefix + empty` for no elements.
 */
interface ListSyntax {
  contentType: string;
  prefix: string;
  first(element: unknown): string | Buffer;
  next(element: unknown): string | Buffer;
  close: string;
  empty: string;
  /** `next` of each element of a shared, never changed (frozen) page, as one buffer; when the spelling keeps one per page. */
  sharedPage?(elements: readonly object[]): { bytes: Buffer; encodedNow: boolean };
}

/** The spelling `writeJson` (compact, or indented for `pretty`) or `writeYaml` uses for the whole list. */
function listSyntax(ctx: RequestContext, shape: ListShape, syntax: "json" | "yaml"): ListSyntax {
  if (Object.keys(shape.envelope).at(-1) !== shape.field) throw new Error(`list body must end with its ${shape.field} array`);
  const split = (text: string, empty: string): string => {
    if (!text.endsWith(empty)) throw new Error(`list body must end with its empty ${shape.field} array`);
    return text.slice(0, -empty.length);
  };
  if (syntax === "yaml") {
    // Each element is spelled inside a one-element list under the same key: same indentation, same folding.
    const key = `${shape.field}:\n`;
    const element = (value: unknown): string => yamlListItem(shape.field, value);
    const empty = `${shape.field}: []\n`;
    return {
      contentType: "application/yaml",
      prefix: split(yamlText(shape.envelope), empty),
      first: (e) => key + element(e),
      next: element,
      close: "",
      empty,
    };
  }
  if (wantsPretty(ctx)) {
    const element = (value: unknown): string => stringifyExactJson(value, 2).replaceAll("\n", "\n    ");
    const prefix = split(JSON.stringify(shape.envelope, null, 2), "]\n}");
    return {
      contentType: "application/json",
      prefix,
      first: (e) => `\n    ${element(e)}`,
      next: (e) => `,\n    ${element(e)}`,
      close: "\n  ]\n}\n",
      empty: "]\n}\n",
    };
  }
  const prefix = split(JSON.stringify(shape.envelope), "]}");
  // Listed objects are shared and never changed, so each is serialised once while it is stored.
  const next = (e: unknown): string | Buffer =>
    typeof e === "object" && e !== null ? sharedJsonAfterComma(e) : `,${stringifyExactJson(e)}`;
  const first = (e: unknown): string | Buffer => {
    const bytes = next(e);
    return typeof bytes === "string" ? bytes.slice(1) : bytes.subarray(1);
  };
  return { contentType: "application/json", prefix, first, next, close: "]}\n", empty: "]}\n", sharedPage: sharedPageJsonAfterCommas };
}

/**
 * Writes a list read in pages while it is read: the body up to its element array, then each
 * page's elements, then the closing brackets — byte for byte what `writeJson` (compact, or
 * indented for `pretty`) or `writeYaml` sends for the whole list, in chunked encoding instead of
 * with a Content-Length. After each page it waits for the socket to take the bytes and yields to
 * the event loop, so one large list holds about one page in memory and other requests are served
 * while it goes out. Pages storage keeps unchanged between lists (frozen arrays, compact JSON) go
 * out as the bytes kept for each, one after the other without waiting: they are held anyway.
 *
 * A failure before the first byte rejects (the caller answers with a Status). Once the status line
 * is out, a failure (the snapshot was compacted away mid-list, the client went away) can only cut
 * the response short: the connection is destroyed, so a client never takes a truncated list for a
 * whole one.
 */
export async function writeListPages(
  ctx: RequestContext,
  list: ListPages,
  shape: ListShape,
  syntax: "json" | "yaml" = "json",
): Promise<void> {
  const { res } = ctx;
  const spelling = listSyntax(ctx, shape, syntax);
  const pages = list.pages[Symbol.asyncIterator]();
  // Read the first page before the status line, so its failure is still a proper error response.
  let next = await pages.next();
  const headers: Record<string, string | string[]> = { "Content-Type": spelling.contentType, "Cache-Control": "no-cache, private" };
  if (ctx.warnings.length > 0) headers["Warning"] = ctx.warnings;
  res.writeHead(200, headers);
  if (ctx.method === "HEAD") {
    await pages.return?.();
    res.end();
    return;
  }
  let chunk: Array<string | Buffer> = [spelling.prefix];
  let first = true;
  try {
    while (next.done !== true) {
      const elements = shape.elements(next.value);
      // A page storage shares unchanged between lists goes out as the bytes kept for it, uncopied.
      const shared =
        spelling.sharedPage !== undefined && elements === next.value && elements.length > 0 && Object.isFrozen(elements)
          ? spelling.sharedPage(next.value)
          : undefined;
      if (shared === undefined) {
        for (const element of elements) {
          chunk.push(first ? spelling.first(element) : spelling.next(element));
          first = false;
        }
      }
      if (res.destroyed) {
        await pages.return?.();
        return;
      }
      let writable = true;
      if (chunk.length > 0) {
        const page = pageBytes(chunk);
        writable = res.write(page.bytes, page.release);
      }
      if (shared !== undefined) {
        writable = res.write(first ? shared.bytes.subarray(1) : shared.bytes);
        first = false;
      }
      chunk = [];
      // A page encoded for this request waits for the socket to take it, and lets other requests
      // in. A kept page adds no memory to the socket's queue and took microseconds to produce:
      // the next one follows at once, so the socket is handed the list in as few writes as it takes.
      if (shared === undefined || shared.encodedNow) {
        if (!writable) await drainedOrClosed(res);
        await new Promise((resolve) => setImmediate(resolve));
      }
      next = await pages.next();
    }
  } catch {
    res.destroy();
    return;
  }
  chunk.push(first ? spelling.empty : spelling.close);
  const last = pageBytes(chunk);
  res.end(last.bytes, last.release);
}

/**
 * Writes a list as a protobuf body while reading it. The envelope states the body's length up
 * front, so a first pass over the pages sums the encoded items' length (encoding and dropping
 * each page), and a second pass, at the same revision, writes them: twice the encoding work for
 * memory that stays at one page. The body is byte for byte `encodeProtobuf` of the whole list and
 * goes out with its Content-Length. Failures follow `writeListPages`: a Status up to the first
 * byte, a cut connection after it.
 */
export async function writeProtobufListPages(ctx: RequestContext, list: ListPages, parts: ProtobufListParts): Promise<void> {
  const { res } = ctx;
  let itemsLength = 0;
  for await (const page of list.pages) {
    for (const object of page) itemsLength += parts.item(object).length;
    await new Promise((resolve) => setImmediate(resolve));
    if (res.destroyed) return;
  }
  const head = parts.head(itemsLength);
  const headers: Record<string, string | string[] | number> = {
    "Content-Type": "application/vnd.kubernetes.protobuf",
    "Cache-Control": "no-cache, private",
    "Content-Length": head.length + itemsLength + parts.tail.length,
  };
  if (ctx.warnings.length > 0) headers["Warning"] = ctx.warnings;
  res.writeHead(200, headers);
  if (ctx.method === "HEAD") {
    res.end();
    return;
  }
  res.write(head);
  let written = 0;
  try {
    for await (const page of list.pages) {
      const items = page.map((object) => parts.item(object));
      const chunk = Buffer.concat(items);
      written += chunk.length;
      if (res.destroyed) return;
      if (!res.write(chunk)) await drainedOrClosed(res);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Both passes read one revision, so this holds; a body that disagreed with its length must not go out.
    if (written !== itemsLength) throw new Error(`list encoded to ${written} bytes, sized at ${itemsLength}`);
  } catch {
    res.destroy();
    return;
  }
  res.end(parts.tail);
}
