#!/usr/bin/env node
/**
 * talkide-mara-plugin <dir>: writes Mara's Claude Code plugin directory (the manifest and
 * `agents/talkide-pm.md`) into <dir>, atomically and only where the bytes differ, then prints
 * one line per file and the value for `claude --agent`.
 */
import { Command } from "commander";
import { MARA_AGENT_NAME } from "../mara/agent-file.ts";
import { writeMaraPlugin } from "../mara/write-plugin.ts";

const program = new Command("talkide-mara-plugin")
  .description("Writes Mara's Claude Code plugin directory.")
  .argument("<dir>", "the plugin directory (created if missing)")
  .action(async (directory: string) => {
    try {
      const results = await writeMaraPlugin(directory);
      for (const result of results) process.stdout.write(`${result.status} ${result.path}\n`);
      process.stdout.write(`agent ${MARA_AGENT_NAME}\n`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      process.stderr.write(`talkide-mara-plugin: cannot write ${directory}: ${reason}\n`);
      process.exitCode = 1;
    }
  });

await program.parseAsync();
