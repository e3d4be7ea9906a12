package org.talkide.context;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The session mode of the runner protocol (spec/runner-protocol.md#session-mode): one JVM
 * answers every case the runner sends, so the runner pays one JVM start per argument list
 * instead of one per case. The handshake line first, then per request {@code case <n>\n} and n
 * input bytes, one answer {@code answer <status> <m> <k>\n}, m stdout bytes and k stderr bytes;
 * the session ends when the runner closes standard input.
 */
final class Session {
  /** Set by the runner when it offers a session; its value is the session mode's version. */
  static final String ENV = "TALKIDE_CONFORMANCE_SESSION";

  private static final byte[] HANDSHAKE =
      "talkide-conformance session 1\n".getBytes(StandardCharsets.US_ASCII);
  private static final Pattern REQUEST = Pattern.compile("case (0|[1-9][0-9]{0,9})");
  private static final int CRASHED = 1;

  /** What a per-case run would have ended with: exit status, stdout bytes, stderr bytes. */
  record Answer(int exitCode, byte[] stdout, byte[] stderr) {}

  private Session() {}

  static boolean requested() {
    return "1".equals(System.getenv(ENV));
  }

  /** Serves the session on the process's standard input and output until the input ends. */
  static void serve(Function<byte[], Answer> answer) throws IOException {
    InputStream in = new BufferedInputStream(System.in);
    OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
    out.write(HANDSHAKE);
    out.flush();
    for (String header = readLine(in); header != null; header = readLine(in)) {
      Matcher request = REQUEST.matcher(header);
      if (!request.matches())
        throw new IOException("session: expected \"case <byte count>\", got \"" + header + "\"");
      int length = Integer.parseInt(request.group(1));
      byte[] input = in.readNBytes(length);
      if (input.length != length)
        throw new EOFException("session: standard input ended in the middle of a request");
      Answer result = answerOrCrash(answer, input);
      String line =
          "answer "
              + result.exitCode()
              + " "
              + result.stdout().length
              + " "
              + result.stderr().length
              + "\n";
      out.write(line.getBytes(StandardCharsets.US_ASCII));
      out.write(result.stdout());
      out.write(result.stderr());
      out.flush();
    }
  }

  /** A case that throws is answered as the crash it would have been per case. */
  private static Answer answerOrCrash(Function<byte[], Answer> answer, byte[] input) {
    try {
      return answer.apply(input);
    } catch (RuntimeException crash) {
      StringWriter trace = new StringWriter();
      crash.printStackTrace(new PrintWriter(trace));
      return new Answer(CRASHED, new byte[0], trace.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  /** One header line without its line feed, or null at the end of the input. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        if (line.size() == 0) return null;
        throw new EOFException("session: standard input ended in the middle of a header");
      }
      line.write(b);
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }
}
