export { PROTOBUF_CONTENT_TYPE, PROTOBUF_MAGIC, decodeProtobuf, encodeProtobuf, supportsProtobuf } from "./codec.js";
export { protobufKinds } from "./message-types.js";
