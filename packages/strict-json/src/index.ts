export {
  BodyFault,
  type BodyFaultCode,
  checkCharset,
  checkStorableText,
  decodeUtf8,
  MAX_NESTING,
  useStrictJsonBodies,
} from "./strict-json.ts";
