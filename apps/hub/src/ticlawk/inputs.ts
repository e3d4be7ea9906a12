import { open } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { LIMITS } from "../input.ts";
import { TiclawkFailure, usageFailure } from "./failure.ts";

/** Everything on standard input; a terminal there means the body was forgotten. */
export async function readBody(
  stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean },
): Promise<string> {
  if (stdin.isTTY === true) {
    throw usageFailure(
      "missing_body",
      "The body is read from standard input; pipe it or use a quoted heredoc: ticlawk message send --target T <<'EOF' ... EOF",
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) {
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}

export interface FileUpload {
  readonly name: string;
  readonly contentBase64: string;
}

/**
 * Reads the `--attach` files, checking the hub's limits first so that nothing is sent when a
 * file is missing, too large or one too many: the message goes with all its files or not at all.
 */
export async function readAttachments(
  paths: readonly string[],
  cwd: string,
): Promise<FileUpload[]> {
  if (paths.length > LIMITS.attachmentsPerMessage) {
    throw usageFailure(
      "too_many_attachments",
      `${paths.length} --attach files; at most ${LIMITS.attachmentsPerMessage} per message. Send the rest in another message.`,
      "attach",
    );
  }
  const uploads: FileUpload[] = [];
  for (const path of paths) {
    const full = resolve(cwd, path);
    let handle;
    try {
      handle = await open(full, "r");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new TiclawkFailure(
        code === "ENOENT" ? "attachment_not_found" : "attachment_unreadable",
        code === "ENOENT"
          ? `No file at ${path}; attach only files that exist.`
          : `Cannot read ${path} (${code ?? "error"}).`,
        { path: "attach" },
      );
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile())
        throw new TiclawkFailure("attachment_not_a_file", `${path} is not a regular file.`, {
          path: "attach",
        });
      if (stat.size > LIMITS.attachmentBytes) {
        throw new TiclawkFailure(
          "attachment_too_large",
          `${path} has ${stat.size} bytes; an attachment may have at most ${LIMITS.attachmentBytes}.`,
          { path: "attach" },
        );
      }
      const content = await handle.readFile();
      uploads.push({ name: basename(full), contentBase64: content.toString("base64") });
    } finally {
      await handle.close();
    }
  }
  return uploads;
}
