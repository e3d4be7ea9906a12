#!/usr/bin/env node
/**
 * Runner-protocol entry points of the prompts, one subcommand per conformance suite:
 *
 *   talkide-prompts standing     input {"brand","cli"[,"capabilities"]} → the standing prompt
 *   talkide-prompts wake         input: a delivery        → the wake prompt text
 *   talkide-prompts agent-file   input: {}                → Mara's agent file
 *
 * Each reads its input on standard input (see cli-io/protocol.ts for the protocol).
 */
import { Command } from "commander";
import { objectWithKeys, runProtocol } from "../cli-io/protocol.ts";
import { renderMaraAgentFile } from "../mara/agent-file.ts";
import { buildStandingPrompt, type StandingPromptParameters } from "../standing/standing-prompt.ts";
import { parseDelivery } from "../wake/delivery.ts";
import { buildInboundWakePrompt } from "../wake/wake-prompt.ts";

const program = new Command("talkide-prompts").description(
  "Renders the TalkIDE prompts from a JSON document on standard input (runner protocol).",
);

program
  .command("standing")
  .description('standing prompt; input {"brand": "...", "cli": "...", "capabilities": [...]}')
  .action(() =>
    runProtocol((input) => {
      const { brand, cli, capabilities } = objectWithKeys(input, ["brand", "cli", "capabilities"]);
      return buildStandingPrompt({ brand, cli, capabilities } as StandingPromptParameters);
    }),
  );

program
  .command("wake")
  .description("wake prompt text; input: one delivery document")
  .option("--cli <name>", "CLI name used in the commands of the prompt", "ticlawk")
  .action((options: { cli: string }) =>
    runProtocol((input) => buildInboundWakePrompt(parseDelivery(input), options).text),
  );

program
  .command("agent-file")
  .description("Mara's agent file; input: {}")
  .action(() =>
    runProtocol((input) => {
      objectWithKeys(input, []);
      return renderMaraAgentFile();
    }),
  );

await program.parseAsync();
