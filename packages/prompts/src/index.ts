/**
 * @talkide/prompts: what a TalkIDE agent reads besides CLAUDE.md.
 *
 * - The standing prompt, the daemon's system prompt for every turn (`buildStandingPrompt`,
 *   versioned by `standingPromptVersion`).
 * - The wake prompt, built per inbound message from a checked delivery (`parseDelivery`,
 *   `buildInboundWakePrompt` and its pieces).
 * - Mara's Claude Code agent file and the plugin directory that carries it.
 * - The backend's user turn for one member message (`buildMemberMessage`).
 */
export {
  buildStandingPrompt,
  STANDING_PROMPT,
  STANDING_PROMPT_VERSION,
  standingPromptVersion,
  type StandingPromptParameters,
} from "./standing/standing-prompt.ts";
export {
  DEFAULT_BRAND,
  DEFAULT_CLI,
  PromptParameterError,
  type PromptParameterErrorCode,
} from "./text/parameters.ts";
export { importSafe } from "./text/import-safe.ts";
export { buildMemberMessage, MEMBER_MESSAGE_HEADER } from "./member/member-message.ts";
export { isSafeToken } from "./text/safe-token.ts";
export { neutralizeInline, neutralizeMultiLine } from "./text/neutralize.ts";
export { toMultiLineText, toSingleLineText } from "@talkide/text";
export {
  CONVERSATION_TYPES,
  DELIVERY_REASONS,
  DeliveryError,
  deliverySchema,
  parseDelivery,
  QUOTE_KINDS,
  SENDER_TYPES,
  TASK_ASSIGNEE_TYPES,
  TASK_STATUSES,
  THREAD_PARENT_TYPES,
  type Attachment,
  type ConversationType,
  type Delivery,
  type DeliveryErrorCode,
  type DeliveryReason,
  type Quote,
  type QuoteKind,
  type SenderType,
  type TaskAssigneeType,
  type TaskStatus,
  type ThreadParentType,
} from "./wake/delivery.ts";
export {
  buildEnvelopeHeader,
  buildEnvelopeTarget,
  buildReactionsSuffix,
  buildTaskSuffix,
  senderHandle,
} from "./wake/envelope.ts";
export {
  buildAttachmentLines,
  buildCharterBlock,
  buildGroupContextBlock,
  buildQuoteBlock,
  type WakePromptOptions,
} from "./wake/blocks.ts";
export {
  buildInboundWakePrompt,
  buildWakePromptText,
  NEW_MESSAGE_NOTICE,
  type InboundWakePrompt,
  type WakePromptParts,
} from "./wake/wake-prompt.ts";
export {
  buildMaraPlugin,
  maraPluginDigest,
  type MaraPluginDigest,
  MARA_AGENT_FILE_NAME,
  MARA_AGENT_FILE_PATH,
  MARA_AGENT_NAME,
  MARA_PLUGIN_NAME,
  PLUGIN_MANIFEST_PATH,
  renderMaraAgentFile,
  type PluginFile,
} from "./mara/agent-file.ts";
export { writeMaraPlugin, type PluginWriteResult } from "./mara/write-plugin.ts";
