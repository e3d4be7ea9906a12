export {
  BodyFault,
  type BodyFaultCode,
  checkCharset,
  checkStorableText,
  decodeUtf8,
  MAX_NESTING,
  useStrictJsonBodies,
} from "./strict-json.ts";
export {
  guardedRoutes,
  type GuardedRoute,
  MAX_PATH_PARAMETER_CHARS,
  MAX_QUERY_VALUE_CHARS,
  PG_INTEGER_MAX,
  UrlFault,
  type UrlFaultCode,
  urlFaultOf,
  urlInteger,
  useStrictUrls,
} from "./strict-url.ts";
