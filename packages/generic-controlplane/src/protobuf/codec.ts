import protobuf from "protobufjs";
import type { KubeObject, ListMeta } from "../api/types.js";
import { badRequest, internalError, protobufFieldNotSupported, protobufNotAcceptable, protobufNotSupported } from "../api/errors/index.js";
import { jsonToMessage, messageToJson } from "./json-form.js";
import { BUILTIN_PROTOBUF, UNKNOWN_TYPE, type ProtobufMessages } from "./message-types.js";

/** `k8s\0`: the prefix of every `application/vnd.kubernetes.protobuf` body. */
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);
export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

function hasMagic(body: Uint8Array): boolean {
  return body.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((byte, i) => body[i] === byte);
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

function decodeEnvelope(body: Uint8Array, scheme: ProtobufMessages): Envelope {
  if (!hasMagic(body))
    throw badRequest(`provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_MAGIC].join(" ")}]`);
  let unknown: Record<string, unknown>;
  try {
    unknown = scheme.lookupType(UNKNOWN_TYPE).decode(body.subarray(PROTOBUF_MAGIC.length)) as unknown as Record<string, unknown>;
  } catch (error) {
    throw badRequest(`unable to decode the protobuf envelope: ${(error as Error).message}`, { cause: error });
  }
  const typeMeta = (unknown["typeMeta"] ?? {}) as { apiVersion?: string; kind?: string };
  const encoding = unknown["contentEncoding"];
  if (typeof encoding === "string" && encoding !== "")
    throw badRequest(`unsupported protobuf content encoding ${JSON.stringify(encoding)}`);
  const raw = unknown["raw"];
  return { apiVersion: typeMeta.apiVersion ?? "", kind: typeMeta.kind ?? "", raw: raw instanceof Uint8Array ? raw : new Uint8Array() };
}

/** Whether `encodeProtobuf`/`decodeProtobuf` handle this kind. */
export function supportsProtobuf(apiVersion: string, kind: string, scheme: ProtobufMessages = BUILTIN_PROTOBUF): boolean {
  return scheme.messageTypeFor(apiVersion, kind) !== undefined;
}

/**
 * Decodes a `k8s\0` protobuf request body into the JSON form a JSON client would have sent.
 * Throws `UnsupportedMediaType` (415) for kinds without protobuf support and `BadRequest` for
 * anything malformed.
 */
export function decodeProtobuf(body: Uint8Array, scheme: ProtobufMessages = BUILTIN_PROTOBUF): KubeObject {
  const envelope = decodeEnvelope(body, scheme);
  if (envelope.kind === "" || envelope.apiVersion === "") throw badRequest("the protobuf envelope does not name an apiVersion and kind");
  const type = scheme.messageTypeFor(envelope.apiVersion, envelope.kind);
  if (type === undefined) {
    throw protobufNotSupported(envelope.apiVersion, envelope.kind);
  }
  let message;
  let undeclared: string | undefined;
  try {
    message = type.decode(envelope.raw);
    if (scheme.isStrictKind(envelope.apiVersion, envelope.kind)) undeclared = undeclaredField(type, envelope.raw);
  } catch (error) {
    throw badRequest(`unable to decode ${envelope.apiVersion}, Kind=${envelope.kind} from protobuf: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (undeclared !== undefined) throw protobufFieldNotSupported(envelope.apiVersion, envelope.kind, undeclared);
  const { metadata, ...fields } = messageToJson(type, message, scheme.fieldRules) as Record<string, unknown>;
  // Go always writes the embedded ObjectMeta/ListMeta struct, so JSON clients send `metadata: {}` at least.
  if (type.fields["metadata"] === undefined) return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...fields };
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, metadata: metadata ?? {}, ...fields };
}

/**
 * The first field on the wire that `type` (or a message inside it) does not declare, as
 * `<message>.<number>`; protobufjs would skip it silently, losing what the client sent.
 */
function undeclaredField(type: protobuf.Type, bytes: Uint8Array): string | undefined {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = type.fieldsById[tag >>> 3];
    if (field === undefined) return `${type.fullName.replace(/^\./, "")}.${tag >>> 3}`;
    const nested = field.resolvedType;
    if ((tag & 7) === 2 && nested instanceof protobuf.Type) {
      const inner = undeclaredField(nested, reader.bytes());
      if (inner !== undefined) return inner;
    } else reader.skipType(tag & 7);
  }
  return undefined;
}

/** Encodes an object of a supported kind as a `k8s\0` protobuf body (for protobuf responses). */
export function encodeProtobuf(object: KubeObject, scheme: ProtobufMessages = BUILTIN_PROTOBUF): Uint8Array {
  const apiVersion = object.apiVersion ?? "";
  const kind = object.kind ?? "";
  const type = scheme.messageTypeFor(apiVersion, kind);
  if (type === undefined) throw protobufNotAcceptable(apiVersion, kind);
  let raw: Uint8Array;
  try {
    raw = type.encode(type.fromObject(jsonToMessage(type, object, scheme.fieldRules) ?? {})).finish();
  } catch (error) {
    throw internalError(
      new Error(`unable to encode ${apiVersion}, Kind=${kind} as protobuf: ${(error as Error).message}`, { cause: error }),
    );
  }
  const unknownType = scheme.lookupType(UNKNOWN_TYPE);
  const envelope = unknownType
    .encode(unknownType.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" }))
    .finish();
  const out = new Uint8Array(PROTOBUF_MAGIC.length + envelope.length);
  out.set(PROTOBUF_MAGIC, 0);
  out.set(envelope, PROTOBUF_MAGIC.length);
  return out;
}

/**
 * The `k8s\0` protobuf body of a list in parts, so a large list can be written while it is read:
 * `head(itemsLength) + item(a) + item(b) + … + tail` is byte for byte `encodeProtobuf` of the whole
 * list. The envelope carries the list's length up front, so a writer sums `item(…).length` over
 * the list first (encoding and dropping each page), then writes.
 */
export interface ProtobufListParts {
  /** One element of the list's `items` as the body carries it (field tag, length, message). */
  item(object: KubeObject): Uint8Array;
  /** Everything before the first item, given the summed length of all items. */
  head(itemsLength: number): Uint8Array;
  /** Everything after the last item. */
  tail: Uint8Array;
}

/** The parts of a list's protobuf body, or undefined when its kind has no protobuf form. */
export function protobufListParts(
  list: { apiVersion: string; kind: string; metadata: ListMeta },
  scheme: ProtobufMessages = BUILTIN_PROTOBUF,
): ProtobufListParts | undefined {
  const { apiVersion, kind } = list;
  const type = scheme.messageTypeFor(apiVersion, kind);
  const itemsField = type?.fields["items"];
  const itemType = itemsField?.resolvedType;
  if (type === undefined || itemsField === undefined || !(itemType instanceof protobuf.Type)) return undefined;
  const encode = (messageType: protobuf.Type, json: unknown, what: string): Uint8Array => {
    try {
      return messageType.encode(messageType.fromObject(jsonToMessage(messageType, json, scheme.fieldRules) ?? {})).finish();
    } catch (error) {
      throw internalError(new Error(`unable to encode ${what} as protobuf: ${(error as Error).message}`, { cause: error }));
    }
  };
  const itemKey = (itemsField.id << 3) | 2;
  const listMeta = encode(type, { metadata: list.metadata }, `${apiVersion}, Kind=${kind}`);
  const unknownType = scheme.lookupType(UNKNOWN_TYPE);
  const rawKey = (unknownType.fields["raw"]!.id << 3) | 2;
  // Unknown's fields go out in field order: typeMeta, raw, contentEncoding, contentType.
  const before = unknownType.encode(unknownType.fromObject({ typeMeta: { apiVersion, kind } })).finish();
  const after = unknownType.encode(unknownType.fromObject({ contentEncoding: "", contentType: "" })).finish();
  return {
    item: (object) => {
      const message = encode(itemType, object, `${apiVersion}, Kind=${kind} item`);
      return concat([protobuf.Writer.create().uint32(itemKey).uint32(message.length).finish(), message]);
    },
    head: (itemsLength) =>
      concat([
        PROTOBUF_MAGIC,
        before,
        protobuf.Writer.create()
          .uint32(rawKey)
          .uint32(listMeta.length + itemsLength)
          .finish(),
        listMeta,
      ]),
    tail: after,
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
