import { fileURLToPath } from "node:url";

/**
 * The installed pg-boss (its resolved path names the version): a file that decides what
 * `WorkQueue.install` writes, for keying a template database that holds the queue's tables.
 */
export const QUEUE_SCHEMA_BUILD: string = fileURLToPath(import.meta.resolve("pg-boss"));
