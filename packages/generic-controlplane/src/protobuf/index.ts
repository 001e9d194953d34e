export {
  PROTOBUF_CONTENT_TYPE,
  PROTOBUF_MAGIC,
  decodeProtobuf,
  encodeProtobuf,
  protobufListParts,
  supportsProtobuf,
  type ProtobufListParts,
} from "./codec.js";
export { protobufKinds } from "./message-types.js";
