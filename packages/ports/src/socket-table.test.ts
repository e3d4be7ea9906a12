import { describe, expect, test } from "vitest";
import { listeningInodes, printable } from "./socket-table.ts";

// Real lines as the Linux kernel prints them (header, then one socket per line).
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F9F 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 00000000:145F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5151 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F9F 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000  1000        0 7777 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:1F9F 0100007F:D2A6 06 00000000:00000000 03:00000D6B 00000000     0        0 0 3 0000000000000000
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F9F 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9191 1 0000000000000000 100 0 0 10 0
`;

describe("listeningInodes", () => {
  test("finds the listening sockets on a port, whatever address they are bound to", () => {
    expect(listeningInodes(TCP, 0x1f9f)).toEqual(["4242"]);
    expect(listeningInodes(TCP, 5215)).toEqual(["5151"]);
    expect(listeningInodes(TCP6, 8095)).toEqual(["9191"]);
  });

  test("ignores connections (ESTABLISHED, TIME_WAIT) and other ports", () => {
    expect(listeningInodes(TCP, 8096)).toEqual([]);
    expect(listeningInodes(TCP.replace(" 0A ", " 01 ").replace(" 0A ", " 01 "), 0x1f9f)).toEqual(
      [],
    );
  });

  test("tolerates an empty or truncated table", () => {
    expect(listeningInodes("", 80)).toEqual([]);
    expect(listeningInodes("header only\n   0: 0100007F", 80)).toEqual([]);
  });
});

describe("printable", () => {
  test("keeps an ordinary command line as it is", () => {
    expect(printable("node server.js --port 8097")).toBe("node server.js --port 8097");
  });

  test("turns control characters and line separators into '?', so output stays one line", () => {
    expect(printable("evil\n\u001b[2Jname\u2028x")).toBe("evil??[2Jname?x");
  });

  test("shortens a very long command line", () => {
    const long = printable("x".repeat(1000));
    expect(Array.from(long)).toHaveLength(300);
    expect(long.endsWith("…")).toBe(true);
  });
});
