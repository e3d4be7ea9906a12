export { parseRenderState, type ParseRenderStateResult } from "./parse.ts";
export {
  renderClaudeMd,
  renderContextFiles,
  type ContextFile,
  type ContextFilePath,
  type RenderContextFilesOptions,
} from "./render.ts";
export {
  RENDER_STATE_ERROR_CODES,
  type RenderStateError,
  type RenderStateErrorCode,
} from "./errors.ts";
export type { RenderMember, RenderProject, RenderState } from "./state.ts";
