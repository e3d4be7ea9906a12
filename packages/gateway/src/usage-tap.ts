import { Transform, type TransformCallback } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import * as zlib from "node:zlib";
import { foldUsage, NO_USAGE, type RequestUsage } from "./usage.ts";

/** What the tap read from a response. */
export interface TappedResponse {
  /** Null when the response carried no usage (an error, another endpoint, a cut stream). */
  readonly usage: RequestUsage | null;
  /** The model the provider said answered (`message.model` / `model`), if any. */
  readonly model: string | null;
  /** The stream ended with `message_stop` (or a whole JSON body was read). */
  readonly complete: boolean;
}

/** A non-streamed body larger than this is passed on without being read for its usage. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

/**
 * Passes a provider's response through unchanged (every chunk is pushed as it came, the same
 * Buffer) and reads a copy of it for its usage: the SSE events `message_start` and
 * `message_delta` of a streamed answer, or the `usage` of a JSON body. A compressed body
 * (`content-encoding`) is decompressed for reading only. `result` settles once the copy has
 * been read, or the stream was cut (then with what was read so far).
 */
export class UsageTap extends Transform {
  readonly result: Promise<TappedResponse>;
  #settle!: (result: TappedResponse) => void;
  #settled = false;
  readonly #reader: SseReader | JsonReader;
  readonly #decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null;

  constructor(headers: Readonly<Record<string, string | string[] | undefined>>) {
    super();
    this.result = new Promise((resolve) => {
      this.#settle = resolve;
    });
    const type = String(headers["content-type"] ?? "").toLowerCase();
    this.#reader = type.startsWith("text/event-stream") ? new SseReader() : new JsonReader();
    this.#decoder = decoderFor(String(headers["content-encoding"] ?? ""));
    if (this.#decoder !== null) {
      this.#decoder.on("data", (chunk: Buffer) => {
        this.#reader.feed(chunk);
      });
      this.#decoder.on("end", () => {
        this.#finish();
      });
      // A body that does not decode is still passed on whole; only its usage is unknown.
      this.#decoder.on("error", () => {
        this.#finish();
      });
      this.#decoder.on("close", () => {
        this.#finish();
      });
    }
    // A cut stream: what was read so far (the decoder first gives back what it holds).
    this.on("close", () => {
      if (this.#decoder === null) this.#finish();
      else if (!this.#decoder.writableEnded) this.#decoder.end();
    });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.push(chunk);
    if (this.#decoder === null) this.#reader.feed(chunk);
    else this.#decoder.write(chunk);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.#decoder === null) this.#finish();
    else this.#decoder.end();
    callback();
  }

  #finish(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#settle(this.#reader.read());
  }
}

function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  // A header value: ASCII, so only spaces and tabs can surround it.
  switch (encoding.replace(/^[ \t]+|[ \t]+$/g, "").toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

interface Reader {
  feed(chunk: Buffer): void;
  read(): TappedResponse;
}

/** Server-sent events, read incrementally: events end at an empty line (LF or CRLF). */
class SseReader implements Reader {
  #text = "";
  readonly #decoder = new StringDecoder("utf8");
  #usage: RequestUsage | null = null;
  #model: string | null = null;
  #complete = false;

  feed(chunk: Buffer): void {
    this.#text += this.#decoder.write(chunk);
    for (;;) {
      const end = /\r?\n\r?\n/.exec(this.#text);
      if (end === null) return;
      this.#event(this.#text.slice(0, end.index));
      this.#text = this.#text.slice(end.index + end[0].length);
    }
  }

  #event(frame: string): void {
    const data = frame
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "") return;
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof event !== "object" || event === null) return;
    const { type } = event as { type?: unknown };
    if (type === "message_start") {
      const message = (event as { message?: { usage?: unknown; model?: unknown } }).message;
      if (typeof message?.model === "string") this.#model = message.model;
      this.#usage = foldUsage(this.#usage ?? NO_USAGE, message?.usage);
    } else if (type === "message_delta") {
      this.#usage = foldUsage(this.#usage ?? NO_USAGE, (event as { usage?: unknown }).usage);
    } else if (type === "message_stop") {
      this.#complete = true;
    }
  }

  read(): TappedResponse {
    return { usage: this.#usage, model: this.#model, complete: this.#complete };
  }
}

/** A JSON body (a non-streamed message, an error, count_tokens), read whole at the end. */
class JsonReader implements Reader {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;

  feed(chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes <= MAX_JSON_BYTES) this.#chunks.push(chunk);
  }

  read(): TappedResponse {
    if (this.#bytes > MAX_JSON_BYTES || this.#bytes === 0) {
      return { usage: null, model: null, complete: false };
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(this.#chunks).toString("utf8"));
    } catch {
      return { usage: null, model: null, complete: false };
    }
    if (typeof body !== "object" || body === null) {
      return { usage: null, model: null, complete: false };
    }
    const { usage, model, type } = body as { usage?: unknown; model?: unknown; type?: unknown };
    return {
      usage: usage === undefined ? null : foldUsage(NO_USAGE, usage),
      model: typeof model === "string" ? model : null,
      complete: type === "message",
    };
  }
}
